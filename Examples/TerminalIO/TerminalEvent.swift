/// An input event of a full-screen app: a key, or a new terminal size.
///
/// ``Terminal/events(reader:resizes:)`` merges both kinds into one stream, so a main-actor loop
/// can wait for whichever comes first with a single `for await`.
public enum TerminalEvent: Hashable, Sendable {
  /// A key was pressed.
  case key(Key)
  /// The terminal was resized to this size.
  case resize(TerminalSize)
}

extension Terminal {
  /// The keys typed and the terminal's new sizes, in one stream.
  ///
  /// ```swift
  /// for await event in Terminal.events() {
  ///   switch event {
  ///   case .key(let key): handle(key)
  ///   case .resize(let size): renderer.size = size
  ///   }
  ///   Terminal.write(renderer.render(frame()))
  /// }
  /// ```
  ///
  /// The sequence ends when the keys end (the input closed): without input, a full-screen app
  /// cannot go on. Ending the loop early (a `break`, a cancelled task) stops both sources.
  ///
  /// - Parameters:
  ///   - reader: Where the keys come from; standard input by default.
  ///   - resizes: Where the sizes come from; ``resizes`` by default.
  /// - Returns: The merged sequence.
  public static func events(
    reader: LineReader = .standardInput, resizes: TerminalStream<TerminalSize> = Terminal.resizes
  ) -> TerminalStream<TerminalEvent> {
    merge(keys: reader.keys, resizes: resizes)
  }

  /// Merges keys and sizes into one sequence that ends with the keys.
  ///
  /// Each `for await` loop over the result iterates `keys` and `resizes` in two tasks of its
  /// own, cancelled when the loop ends.
  ///
  /// - Parameters:
  ///   - keys: The keys; the merged sequence ends when they end.
  ///   - resizes: The sizes; their end ends nothing.
  /// - Returns: The merged sequence, the elements of each source in the order it delivered them.
  public static func merge(
    keys: some AsyncSequence<Key, Never> & Sendable,
    resizes: some AsyncSequence<TerminalSize, Never> & Sendable
  ) -> TerminalStream<TerminalEvent> {
    TerminalStream {
      let (events, continuation) = AsyncStream.makeStream(of: TerminalEvent.self)
      let resizeTask = Task {
        for await size in resizes { continuation.yield(.resize(size)) }
      }
      let keyTask = Task {
        for await key in keys { continuation.yield(.key(key)) }
        continuation.finish()
      }
      continuation.onTermination = { _ in
        keyTask.cancel()
        resizeTask.cancel()
      }
      return .init(elements: events, stop: { continuation.finish() })
    }
  }
}
