import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The reading loop behind ``LineReader``: a dedicated thread blocks in `poll` and `read`, feeds
/// the bytes to a pure decoder and yields what it decodes, so the main actor never waits for
/// input.
enum ReaderThread {
  /// The size of one `read`.
  static let chunkSize = 4096

  /// Starts a thread that reads `fileDescriptor` until its end and yields what `decoder` makes
  /// of the bytes.
  ///
  /// The elements finish at the end of the input (or on a read error). When the source is
  /// stopped first (the stream's consumer cancelled, or ``TerminalStream`` calling `stop`), the
  /// thread is woken and stops without reading further, leaving the next bytes to whoever reads
  /// next.
  ///
  /// - Parameters:
  ///   - quietPeriod: How long the thread waits for more bytes while the decoder is in the
  ///     middle of something (``ByteStreamDecoder/isWaitingForQuietPeriod``) before settling it.
  static func start<Decoder: ByteStreamDecoder>(
    reading fileDescriptor: Int32, with decoder: Decoder, quietPeriod: Duration
  ) -> TerminalStream<Decoder.Output>.Source {
    let (stream, continuation) = AsyncStream.makeStream(of: Decoder.Output.self)
    let wake = WakeSignal()
    continuation.onTermination = { _ in wake.signal() }
    let timeout = milliseconds(quietPeriod)
    let thread = Thread {
      run(
        fileDescriptor: fileDescriptor, decoder: decoder, quietPeriodMilliseconds: timeout,
        wake: wake, continuation: continuation)
    }
    thread.name = "TerminalIO.ReaderThread"
    thread.start()
    return .init(elements: stream, stop: { continuation.finish() })
  }

  private static func run<Decoder: ByteStreamDecoder>(
    fileDescriptor: Int32, decoder: consuming Decoder, quietPeriodMilliseconds: Int32,
    wake: WakeSignal, continuation: AsyncStream<Decoder.Output>.Continuation
  ) {
    defer { continuation.finish() }
    var decoder = decoder
    var buffer = [UInt8](repeating: 0, count: chunkSize)
    let readable = Int16(POLLIN)
    let closed = Int16(POLLHUP) | Int16(POLLERR) | Int16(POLLNVAL)
    reading: while true {
      var descriptors = [
        pollfd(fd: fileDescriptor, events: readable, revents: 0),
        pollfd(fd: wake.readEnd, events: readable, revents: 0),
      ]
      let timeout = decoder.isWaitingForQuietPeriod ? quietPeriodMilliseconds : -1
      let ready = poll(&descriptors, nfds_t(descriptors.count), timeout)
      if ready < 0 {
        if errno == EINTR { continue reading }
        break reading
      }
      if descriptors[1].revents != 0 {
        // NB: the consumer is gone; whatever is decoded now would be dropped.
        return
      }
      if ready == 0 {
        for output in decoder.settlePending() { continuation.yield(output) }
        continue reading
      }
      if descriptors[0].revents & Int16(POLLNVAL) != 0 { break reading }
      guard descriptors[0].revents & (readable | closed) != 0 else { continue reading }
      let count = buffer.withUnsafeMutableBytes { read(fileDescriptor, $0.baseAddress, $0.count) }
      if count > 0 {
        let outputs = buffer.withUnsafeBufferPointer { bytes in
          decoder.decodeChunk(UnsafeBufferPointer(rebasing: bytes[..<count]))
        }
        for output in outputs { continuation.yield(output) }
      } else if count == 0 {
        break reading
      } else if errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK {
        break reading
      }
    }
    for output in decoder.finishInput() { continuation.yield(output) }
  }

  /// `duration` in whole milliseconds for `poll`, at least 1 and at most a day.
  static func milliseconds(_ duration: Duration) -> Int32 {
    let (seconds, attoseconds) = duration.components
    let total = seconds * 1_000 + attoseconds / 1_000_000_000_000_000
    return Int32(clamping: min(max(total, 1), 86_400_000))
  }
}
