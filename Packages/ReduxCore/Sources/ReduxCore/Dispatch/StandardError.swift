#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Writes `message` to the process's standard error, the one place ReduxCore reports to when
/// the app gave it no `onLog` (ReduxCore has no logger of its own).
func writeToStandardError(_ message: String) {
  #if canImport(Glibc) || canImport(Musl) || canImport(Darwin)
    var message = message
    message.withUTF8 { bytes in
      // NB: a failed write to standard error has nowhere left to be reported.
      _ = write(2, bytes.baseAddress, bytes.count)
    }
  #endif
}
