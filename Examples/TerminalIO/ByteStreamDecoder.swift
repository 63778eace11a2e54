/// A pure decoder the reader thread feeds: bytes in, values out, and a rule for the quiet
/// period after a chunk that ends in the middle of something.
///
/// ``KeyDecoder`` and ``LineDecoder`` conform, which is how ``LineReader/keys`` and
/// ``LineReader/lines`` share one reading loop.
protocol ByteStreamDecoder: Sendable {
  /// What the decoder makes of the bytes.
  associatedtype Output: Sendable

  /// Whether the reader should call ``settlePending()`` once no byte arrives for its quiet
  /// period.
  var isWaitingForQuietPeriod: Bool { get }

  /// Decodes one chunk as read.
  mutating func decodeChunk(_ bytes: UnsafeBufferPointer<UInt8>) -> [Output]

  /// Settles what is pending because no byte followed it within the quiet period.
  mutating func settlePending() -> [Output]

  /// Settles what is pending because the input ended.
  mutating func finishInput() -> [Output]
}

extension KeyDecoder: ByteStreamDecoder {
  var isWaitingForQuietPeriod: Bool { hasPendingBytes }

  mutating func decodeChunk(_ bytes: UnsafeBufferPointer<UInt8>) -> [Key] { decode(bytes) }

  mutating func settlePending() -> [Key] { flush() }

  mutating func finishInput() -> [Key] { flush() }
}

extension LineDecoder: ByteStreamDecoder {
  // NB: a line has no timeout: a partial line waits for its LF or the end of the input.
  var isWaitingForQuietPeriod: Bool { false }

  mutating func decodeChunk(_ bytes: UnsafeBufferPointer<UInt8>) -> [String] { decode(bytes) }

  mutating func settlePending() -> [String] { [] }

  mutating func finishInput() -> [String] { finish() }
}
