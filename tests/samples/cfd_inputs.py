"""Inputs of samples/cfd_flux.dpia in its physical domain, for `dpia run
--input` (docs/reference.md section 8.5): random ones would give a negative
pressure, whose speed of sound is not a number.  Each element has density
in [1, 2), velocity in [-0.5, 0.5)^3 and pressure in [0.5, 1.5) (Rodinia's
conserved variables: density, momentum, density_energy); each face a
neighbour anywhere in the mesh (70%), a wing boundary (-1, 10%), the far
field (-2, 10%) or another negative code, which contributes nothing (10%);
normals in [-1, 1)^3; the far field Rodinia's (Mach 1.2, angle of attack
0, density 1.4, pressure 1) with its flux contributions computed as
euler3d.cpp computes them."""
import math
import os
import random

GAMMA = 1.4


def _flux_contribution(density, momentum, density_energy):
    """euler3d's compute_flux_contribution: momentum x, y, z and
    density_energy's 3-vectors"""
    velocity = [m / density for m in momentum]
    pressure = (GAMMA - 1.0) * (density_energy - 0.5 * density * sum(v * v for v in velocity))
    rows = [[velocity[c] * momentum[r] + (pressure if r == c else 0.0) for c in range(3)] for r in range(3)]
    return rows + [[v * (density_energy + pressure) for v in velocity]]


def values(n, seed=7):
    """the inputs of computeFlux at N=n: {parameter: [numbers]}"""
    rnd = random.Random(seed)
    rows = [[0.0] * n for _ in range(5)]
    for i in range(n):
        d, p = rnd.uniform(1.0, 2.0), rnd.uniform(0.5, 1.5)
        v = [rnd.uniform(-0.5, 0.5) for _ in range(3)]
        rows[0][i] = d
        for c in range(3):
            rows[1 + c][i] = d * v[c]
        rows[4][i] = p / (GAMMA - 1.0) + 0.5 * d * sum(x * x for x in v)
    nbs = []
    for _ in range(4 * n):
        r = rnd.random()
        nbs.append(rnd.randrange(n) if r < 0.7 else -1 if r < 0.8 else -2 if r < 0.9 else rnd.randint(-8, -3))
    # every kind of face at any size: face 0 of elements 0, 1, 2
    for i, code in enumerate([-1, -2, -3][:n]):
        nbs[i] = code
    ff_density, ff_pressure = 1.4, 1.0
    ff_speed = 1.2 * math.sqrt(GAMMA * ff_pressure / ff_density)
    ff_momentum = [ff_density * ff_speed, 0.0, 0.0]
    ff_density_energy = ff_density * 0.5 * ff_speed * ff_speed + ff_pressure / (GAMMA - 1.0)
    fc = _flux_contribution(ff_density, ff_momentum, ff_density_energy)
    return {
        'variables': [x for row in rows for x in row],
        'nbs': nbs,
        'normals': [rnd.uniform(-1.0, 1.0) for _ in range(12 * n)],
        'ffVariable': [ff_density] + ff_momentum + [ff_density_energy],
        'ffFcMomentumX': fc[0], 'ffFcMomentumY': fc[1], 'ffFcMomentumZ': fc[2], 'ffFcDensityEnergy': fc[3],
    }


def input_args(directory, n, seed=7):
    """the files of values(n) written in directory, as `--input` arguments"""
    args = []
    for name, numbers in values(n, seed).items():
        path = os.path.join(directory, f'{name}.txt')
        with open(path, 'w') as f:
            f.write('\n'.join(repr(x) for x in numbers) + '\n')
        args += ['--input', f'{name}={path}']
    return args


# the kernels of the samples run on inputs of their domain: the `dpia run
# --input` arguments of such inputs made in a directory, at sizes
# (tests/samples/run_samples.py, tests/oclgrind/run_oclgrind_samples.py)
RUN_INPUTS = {
    'computeFlux': lambda directory, sizes: input_args(directory, sizes['N']),
}
