// Safety: `CrashRestoreStorage` is shared between the threads of the process and the crash
// signal handler, which run on any thread. Every write happens before any read of the same
// memory, with a synchronizing operation between them:
// - each previous action is written once, by the kernel inside the `sigaction(2)` call of
//   `CrashRestore.install()` (guarded by a compare-exchange so it runs once per process), and
//   read only by the handler that call installed, which cannot run before the call returns;
//   the handler's own `sigaction(2)` only reads it;
// - `settings` and `fileDescriptor` are written once, in `CrashRestore.arm`, under
//   `Terminal.changes`' lock (so never by two threads at once), before the release store of
//   `CrashRestore.hasSavedSettings`; the handler reads them only after an acquire load of it
//   returns `true`, and `arm` never writes them again once it is `true`.
// The object is never freed (a static let), so no reader outlives its memory.
extension CrashRestoreStorage: @unchecked Sendable {}
