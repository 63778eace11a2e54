import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A `pipe()` whose write end a test writes to and whose read end a `LineReader` reads.
final class TestPipe: Sendable {
  let readEnd: Int32
  /// The write end, `nil` once closed.
  private let writeEnd: Mutex<Int32?>

  init(sourceLocation: SourceLocation = #_sourceLocation) throws {
    var ends: [Int32] = [-1, -1]
    try #require(pipe(&ends) == 0, "pipe() failed", sourceLocation: sourceLocation)
    readEnd = ends[0]
    writeEnd = Mutex(ends[1])
  }

  deinit {
    closeWriteEnd()
    close(readEnd)
  }

  /// The write end, or `nil` once closed.
  var writeDescriptor: Int32? { writeEnd.withLock { $0 } }

  /// Writes every byte, blocking while the pipe is full.
  func write(_ bytes: [UInt8]) {
    guard let descriptor = writeDescriptor else { return }
    writeFully(bytes, to: descriptor)
  }

  func write(_ text: String) {
    write(Array(text.utf8))
  }

  /// Writes `bytes` from a thread of its own, then closes the write end: for more than the
  /// pipe holds.
  func writeInBackgroundThenClose(_ bytes: [UInt8]) {
    let thread = Thread {
      self.write(bytes)
      self.closeWriteEnd()
    }
    thread.start()
  }

  /// Ends the input: the reader sees the end of the file.
  func closeWriteEnd() {
    writeEnd.withLock { end in
      if let descriptor = end { close(descriptor) }
      end = nil
    }
  }
}

/// `write(2)` until every byte is written or an error other than EINTR.
private func writeFully(_ bytes: [UInt8], to descriptor: Int32) {
  var offset = 0
  while offset < bytes.count {
    let written = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    if written > 0 {
      offset += written
    } else if written < 0 && errno == EINTR {
      continue
    } else {
      return
    }
  }
}

/// Collects every element of a sequence.
func collect<Element>(_ elements: some AsyncSequence<Element, Never>) async -> [Element] {
  var collected: [Element] = []
  for await element in elements { collected.append(element) }
  return collected
}
