/// Line mode: one command per line from a pipe, a script or a terminal that asked for it;
/// each reply printed as it comes. It reads through an async sequence, so the main actor (the
/// store, the persistence timers) keeps running while it waits for a line.
@MainActor
enum LineMode {
  /// Runs every line of `lines` until `quit` or the end of the input.
  ///
  /// - Parameters:
  ///   - prompt: Printed before each line is read (a terminal in line mode), or `nil`.
  ///   - write: Where replies go, the prompt among them; errors are marked `error:` and
  ///     counted.
  /// - Returns: The number of lines that failed.
  static func run<Lines: AsyncSequence<String, Never>>(
    _ session: BoardSession, lines: Lines, prompt: String? = nil, write: (Reply) -> Void
  ) async -> Int {
    var failures = 0
    if let prompt { write(.info(prompt)) }
    for await line in lines {
      let reply: Reply?
      let command: Command?
      do {
        command = try CommandParser.parse(line)
        reply = if let command { await session.run(command) } else { nil }
      } catch {
        command = nil
        reply = .error("\(error)")
      }
      if let reply {
        write(reply)
        if reply.isError { failures += 1 }
      }
      if command == .quit { break }
      if let prompt { write(.info(prompt)) }
    }
    return failures
  }
}
