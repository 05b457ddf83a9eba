"""The PoCL kernel cache of the test drivers that launch kernels through
`dpia run` (tests/samples/run_samples.py, tests/cli/launch_sizes_cli.py,
tests/cli/options_cli.py, tests/pipeline/run_pipelines.py).

Building a kernel is most of what a run costs on PoCL (about 0.9 s of the
1 s of a sample's run; under the sanitizers 1.3 s of 1.7 s), and PoCL keys
what it keeps by the program's source, its build options and the device,
and a kernel's machine code also by the local size it was specialised for:
a run that finds its kernel there builds exactly what it would have built.
So the drivers give PoCL a cache of their own rather than none (they once
set POCL_KERNEL_CACHE=0 so as not to read or fill the user's
~/.cache/pocl): a kernel run at several sizes is built once per test, and
a source a test changes (an injected bug, a launch size) is built anew.

DPIA_TEST_POCL_CACHE=DIR (tools/test.sh) shares DIR between the tests and
between the normal and the sanitized stage, so that the sanitized stage
builds no kernel the normal stage built: its runs go through the same
steps of dpia (translation, verification, the race check, the build call,
the launch, --check), PoCL finding the machine code instead of compiling
the same source a second time.  PoCL writes an entry to a temporary file
and renames it into place, so tests running at the same time may share
the directory (as every process shares its default ~/.cache/pocl).
Unset: a temporary directory of the test's own, removed at its exit."""
import atexit, os, shutil, tempfile


def env():
    """os.environ with PoCL's kernel cache in the test's directory"""
    d = os.environ.get('DPIA_TEST_POCL_CACHE')
    if d:
        os.makedirs(d, exist_ok=True)
    else:
        d = tempfile.mkdtemp(prefix='dpia-pocl-')
        atexit.register(shutil.rmtree, d, True)
    return dict(os.environ, POCL_KERNEL_CACHE='1', POCL_CACHE_DIR=d)
