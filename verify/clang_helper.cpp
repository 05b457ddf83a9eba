// clang_helper.cpp: dpia-clang-check, the OpenCL verifier of
// verify/clang_check.c as a process of its own (spec section 1, step 6;
// a command line call under 20 ms: bench/throughput.c).
//
// Why a program, and why C++.  Verifying in the dpia process means loading
// libclang and libLLVM (150 MB, 600,000 relocations, 10-15 ms) for one
// parse of 2-3 ms.  This program links clang's parser statically into a
// position-dependent executable: nothing to relocate at startup and only
// the code a parse runs is ever paged in, so a whole call (start, parse,
// exit) costs about what the parse alone costs in the library.  Debian
// ships clang's libraries statically only as its C++ libraries (there is
// no static libclang C API), hence the one C++ file of the project: it is
// the thinnest driver of clang's C++ API that does what libclang's
// clang_parseTranslationUnit2 does, and nothing more.
//
// Equally strict, same report.  The command line flags are clang_check.c's
// (passed as this program's arguments, one source of truth).  Everything
// else follows libclang 15 (tools/libclang/CIndex.cpp, CIndexDiagnostic.cpp,
// CXStoredDiagnostic.cpp, frontend/ASTUnit.cpp):
//   - -fno-spell-checking first, as libclang adds it, then the flags, then
//     the file name; the text is an in-memory (remapped) file of that name;
//   - the driver runs with a diagnostics engine of default options, whose
//     diagnostics are kept; then the engine is reset and configured by the
//     invocation's warning options (ProcessWarningOptions), and the file is
//     parsed with it (syntax only);
//   - every diagnostic is stored as it comes and rendered at the end by a
//     DiagnosticNoteRenderer as libclang's CXDiagnosticRenderer does: notes
//     become children of the diagnostic before them, and the renderer's own
//     notes (macro expansions, include stack) are children too;
//   - locations are expansion locations; a range's end is moved to the
//     expansion of a macro and past its last token as libclang's
//     translateSourceRange does.
// tests/verify/test_clang.c checks that the two give byte-identical
// reports.
//
// Protocol (clang_check.c).  stdin: for each text to verify, its length in
// bytes as a decimal line, then the bytes.  stdout: for each text, one line
// per diagnostic and then "end\t0" (parsed) or "end\tN" (the parse could not
// run; N as libclang's CXErrorCode).  A diagnostic line is tab-separated:
//   depth severity where line col file option message nranges {l1 c1 l2 c2}
// depth 0 for a diagnostic, 1 for a child; severity as CXDiagnosticSeverity;
// where 0 (no location), 1 (the verified text; file empty) or 2 (another
// file); ranges only those with both ends in the verified text.  Tabs,
// newlines and backslashes in strings are escaped as \t \n \\.  At the end
// of stdin the program exits 0.

#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/DiagnosticIDs.h"
#include "clang/Basic/DiagnosticOptions.h"
#include "clang/Basic/LangOptions.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/CompilerInvocation.h"
#include "clang/Frontend/DiagnosticRenderer.h"
#include "clang/Frontend/FrontendActions.h"
#include "clang/Frontend/Utils.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/PreprocessorOptions.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

using namespace clang;

namespace {

// CXDiagnosticSeverity (clang-c/Index.h)
enum Severity { SEV_IGNORED = 0, SEV_NOTE = 1, SEV_WARNING = 2, SEV_ERROR = 3, SEV_FATAL = 4 };

Severity severity_of(DiagnosticsEngine::Level level) {
  switch (level) {
  case DiagnosticsEngine::Ignored: return SEV_IGNORED;
  case DiagnosticsEngine::Note: return SEV_NOTE;
  case DiagnosticsEngine::Remark: // not in libclang's stable API: a warning there too
  case DiagnosticsEngine::Warning: return SEV_WARNING;
  case DiagnosticsEngine::Error: return SEV_ERROR;
  case DiagnosticsEngine::Fatal: return SEV_FATAL;
  }
  return SEV_IGNORED;
}

void put_escaped(std::string &out, llvm::StringRef s) {
  for (char c : s) {
    if (c == '\\') out += "\\\\";
    else if (c == '\t') out += "\\t";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
}

// A location as clang_getExpansionLocation sees it.
struct Where {
  int kind = 0; // 0 none, 1 the verified text, 2 another file
  unsigned line = 0, col = 0;
  std::string file;
};

Where expansion(const SourceManager *sm, SourceLocation loc) {
  Where w;
  if (!sm || loc.isInvalid()) return w;
  SourceLocation exp = sm->getExpansionLoc(loc);
  FileID fid = sm->getFileID(exp);
  bool invalid = false;
  const SrcMgr::SLocEntry &entry = sm->getSLocEntry(fid, &invalid);
  if (invalid || !entry.isFile()) return w;
  const FileEntry *fe = sm->getFileEntryForSLocEntry(entry);
  if (!fe) return w;
  w.line = sm->getExpansionLineNumber(exp);
  w.col = sm->getExpansionColumnNumber(exp);
  if (fe == sm->getFileEntryForID(sm->getMainFileID())) {
    w.kind = 1;
  } else {
    w.kind = 2;
    w.file = fe->getName().str();
  }
  return w;
}

// One diagnostic of the report tree (libclang's CXDiagnosticImpl).
struct Record {
  int depth;
  Severity severity;
  Where where;
  std::string option, message;
  std::vector<Where> ranges; // begin, end pairs
};

// libclang's CXDiagnosticRenderer, writing Records.
class Renderer : public DiagnosticNoteRenderer {
public:
  Renderer(const LangOptions &lang, DiagnosticOptions *opts, std::vector<Record> &out)
      : DiagnosticNoteRenderer(lang, opts), out_(out) {}

  void beginDiagnostic(DiagOrStoredDiag d, DiagnosticsEngine::Level level) override {
    const StoredDiagnostic *sd = d.dyn_cast<const StoredDiagnostic *>();
    if (!sd) return;
    if (level != DiagnosticsEngine::Note) in_children_ = false;
    Record r;
    r.depth = in_children_ ? 1 : 0;
    r.severity = severity_of(sd->getLevel());
    const SourceManager *sm = sd->getLocation().hasManager() ? &sd->getLocation().getManager() : nullptr;
    r.where = expansion(sm, sd->getLocation());
    llvm::StringRef option = DiagnosticIDs::getWarningOptionForDiag(sd->getID());
    if (!option.empty()) r.option = "-W" + option.str(); // else none (libclang names -ferror-limit=0 only as the
                                                          // option that would disable too many errors)
    r.message = sd->getMessage().str();
    for (const CharSourceRange &range : sd->getRanges()) {
      if (!sm) continue;
      r.ranges.push_back(expansion(sm, range.getBegin()));
      r.ranges.push_back(expansion(sm, range_end(*sm, range)));
    }
    out_.push_back(std::move(r));
    if (level != DiagnosticsEngine::Note) in_children_ = true;
  }

  void emitDiagnosticMessage(FullSourceLoc loc, PresumedLoc, DiagnosticsEngine::Level, llvm::StringRef message,
                             llvm::ArrayRef<CharSourceRange>, DiagOrStoredDiag d) override {
    if (!d.isNull()) return;
    custom_note(loc, message);
  }
  void emitDiagnosticLoc(FullSourceLoc, PresumedLoc, DiagnosticsEngine::Level, llvm::ArrayRef<CharSourceRange>) override {
  }
  void emitCodeContext(FullSourceLoc, DiagnosticsEngine::Level, llvm::SmallVectorImpl<CharSourceRange> &,
                       llvm::ArrayRef<FixItHint>) override {}
  void emitNote(FullSourceLoc loc, llvm::StringRef message) override { custom_note(loc, message); }

private:
  // translateSourceRange (libclang CIndex.cpp): the end of a token range
  // is past its last token, in the macro's expansion when it is in one
  SourceLocation range_end(const SourceManager &sm, const CharSourceRange &range) const {
    SourceLocation end = range.getEnd();
    bool token = range.isTokenRange();
    if (end.isValid() && end.isMacroID() && !sm.isMacroArgExpansion(end)) {
      CharSourceRange expanded = sm.getExpansionRange(end);
      end = expanded.getEnd();
      token = expanded.isTokenRange();
    }
    if (token && end.isValid()) end = end.getLocWithOffset(Lexer::MeasureTokenLength(sm.getSpellingLoc(end), sm, LangOpts));
    return end;
  }

  void custom_note(FullSourceLoc loc, llvm::StringRef message) {
    Record r;
    r.depth = in_children_ ? 1 : 0;
    r.severity = SEV_NOTE;
    r.where = expansion(loc.hasManager() ? &loc.getManager() : nullptr, loc);
    r.message = message.str();
    out_.push_back(std::move(r));
  }

  std::vector<Record> &out_;
  bool in_children_ = false;
};

// Stores every diagnostic (ASTUnit's StoredDiagnosticConsumer) and renders
// them all before the source manager goes away.
class Collector : public DiagnosticConsumer {
public:
  void HandleDiagnostic(DiagnosticsEngine::Level level, const Diagnostic &info) override {
    DiagnosticConsumer::HandleDiagnostic(level, info);
    stored_.emplace_back(level, info);
  }
  void BeginSourceFile(const LangOptions &lang, const Preprocessor *) override { lang_ = lang; }
  void EndSourceFile() override { render(); }

  // the records, rendering what is still stored (a parse that never began)
  std::vector<Record> &records() {
    render();
    return records_;
  }

private:
  void render() {
    IntrusiveRefCntPtr<DiagnosticOptions> opts = new DiagnosticOptions;
    Renderer renderer(lang_, opts.get(), records_);
    for (StoredDiagnostic &d : stored_) renderer.emitStoredDiagnostic(d);
    stored_.clear();
  }

  LangOptions lang_;
  std::vector<StoredDiagnostic> stored_;
  std::vector<Record> records_;
};

const char generated_name[] = "dpia-generated.cl"; // as clang_check.c

// CXErrorCode values
enum { PARSED = 0, AST_READ_ERROR = 4 };

int parse(const std::vector<const char *> &args, const std::string &text, std::string &out) {
  Collector collector;
  IntrusiveRefCntPtr<DiagnosticsEngine> diags =
      CompilerInstance::createDiagnostics(new DiagnosticOptions, &collector, /*ShouldOwnClient=*/false);
  CreateInvocationOptions options;
  options.Diags = diags;
  options.ProbePrecompiled = true;
  std::shared_ptr<CompilerInvocation> invocation = createInvocation(args, options);
  int status = AST_READ_ERROR;
  if (invocation) {
    PreprocessorOptions &pp = invocation->getPreprocessorOpts();
    pp.addRemappedFile(generated_name, llvm::MemoryBuffer::getMemBufferCopy(text, generated_name).release());
    pp.RemappedFilesKeepOriginalName = true;
    invocation->getFrontendOpts().DisableFree = false;
    invocation->getDiagnosticOpts().ShowCarets = false; // no "N errors generated" on stderr
    diags->Reset();
    ProcessWarningOptions(*diags, invocation->getDiagnosticOpts());
    CompilerInstance compiler;
    compiler.setInvocation(invocation);
    compiler.setDiagnostics(diags.get());
    SyntaxOnlyAction action;
    compiler.ExecuteAction(action);
    status = PARSED;
  }
  for (const Record &r : collector.records()) {
    out += std::to_string(r.depth) + '\t' + std::to_string(r.severity) + '\t' + std::to_string(r.where.kind) + '\t' +
           std::to_string(r.where.line) + '\t' + std::to_string(r.where.col) + '\t';
    put_escaped(out, r.where.file);
    out += '\t';
    put_escaped(out, r.option);
    out += '\t';
    put_escaped(out, r.message);
    std::string ranges;
    unsigned n = 0;
    for (size_t i = 0; i + 1 < r.ranges.size(); i += 2) {
      const Where &b = r.ranges[i], &e = r.ranges[i + 1];
      if (b.kind != 1 || e.kind != 1) continue;
      ranges += '\t' + std::to_string(b.line) + '\t' + std::to_string(b.col) + '\t' + std::to_string(e.line) + '\t' +
                std::to_string(e.col);
      n++;
    }
    out += '\t' + std::to_string(n) + ranges + '\n';
  }
  out += "end\t" + std::to_string(status) + '\n';
  return status;
}

} // namespace

int main(int argc, char **argv) {
  std::vector<const char *> args = {"clang", "-fno-spell-checking"};
  for (int i = 1; i < argc; i++) args.push_back(argv[i]);
  args.push_back(generated_name);
  for (;;) {
    unsigned long len;
    if (std::scanf("%lu", &len) != 1 || std::getchar() != '\n') break;
    std::string text(len, '\0');
    if (len > 0 && std::fread(&text[0], 1, len, stdin) != len) break;
    std::string out;
    parse(args, text, out);
    if (std::fwrite(out.data(), 1, out.size(), stdout) != out.size() || std::fflush(stdout) != 0) return 1;
  }
  // no static destructors of clang and LLVM: nothing is left to release
  std::fflush(stdout);
  std::_Exit(0);
}
