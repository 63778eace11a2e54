/// Splits bytes into lines: pure, synchronous, and fed in chunks of any size.
///
/// A line ends at LF; a CR just before it is dropped, so CRLF input reads the same as LF input.
/// The last line of the input needs no LF: ``finish()`` returns it. Bytes that are not valid
/// UTF-8 become U+FFFD REPLACEMENT CHARACTER; decoding never fails.
///
/// ```swift
/// var decoder = LineDecoder()
/// decoder.decode(Array("one\r\ntw".utf8))  // ["one"]
/// decoder.decode(Array("o\nthree".utf8))  // ["two"]
/// decoder.finish()  // ["three"]
/// ```
public struct LineDecoder: Hashable, Sendable {
  /// The bytes of the line read so far, after the last LF.
  private var partialLine: [UInt8] = []

  /// Makes a decoder at the start of a line.
  public init() {}

  /// Whether bytes of an unfinished line are waiting for their LF or for ``finish()``.
  public var hasPartialLine: Bool { !partialLine.isEmpty }

  /// Decodes the next chunk of input.
  ///
  /// - Parameter bytes: The bytes as read; a chunk may end anywhere, even inside a character.
  /// - Returns: The lines this chunk completes, without their line ends.
  /// - Complexity: O(*n*), where *n* is the number of bytes in `bytes` plus those of the
  ///   unfinished line.
  public mutating func decode(_ bytes: some Sequence<UInt8>) -> [String] {
    var lines: [String] = []
    for byte in bytes {
      if byte == UInt8(ascii: "\n") {
        lines.append(Self.line(from: partialLine))
        partialLine.removeAll(keepingCapacity: true)
      } else {
        partialLine.append(byte)
      }
    }
    return lines
  }

  /// Ends the input: returns the last line when it had no LF.
  ///
  /// - Returns: The unfinished line, or nothing when the input ended with a line end (or was
  ///   empty). Afterwards the decoder is at the start of a line again.
  /// - Complexity: O(*n*), where *n* is the length of the unfinished line.
  public mutating func finish() -> [String] {
    guard hasPartialLine else { return [] }
    defer { partialLine.removeAll() }
    return [Self.line(from: partialLine)]
  }

  private static func line(from bytes: [UInt8]) -> String {
    let content = bytes.last == UInt8(ascii: "\r") ? bytes.dropLast() : bytes[...]
    return String(decoding: content, as: UTF8.self)
  }
}
