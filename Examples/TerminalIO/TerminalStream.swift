/// An async sequence of terminal input (lines, keys, sizes, events) that starts its source when
/// iterated and stops it when the iteration ends.
///
/// Each `for await` loop (each ``makeAsyncIterator()``) starts a source of its own: a reading
/// thread, a signal source, or both for ``Terminal/events(reader:resizes:)``. The source stops as
/// soon as the loop does, however it ends: the input ended, a `break` or a `return` out of the
/// loop, or the loop's task cancelled. That matters for a descriptor: a reading thread left
/// running after its loop would take the next bytes from whoever reads after it.
///
/// Elements are buffered without bound between the source and the loop.
public struct TerminalStream<Element: Sendable>: AsyncSequence, Sendable {
  /// Never thrown: the sequence ends at the end of its input.
  public typealias Failure = Never

  /// A started source: its elements, and how to stop it.
  struct Source {
    /// The elements, finished at the end of the input.
    var elements: AsyncStream<Element>
    /// Stops the source; safe to call more than once, and after the source ended by itself.
    var stop: @Sendable () -> Void
  }

  /// Starts a source for one iteration.
  private let start: @Sendable () -> Source

  /// Makes a sequence that calls `start` for each iteration.
  init(start: @escaping @Sendable () -> Source) {
    self.start = start
  }

  /// Starts the source and returns an iterator over its elements; the source stops when the
  /// iterator (and every copy of it) is gone, or when the iterating task is cancelled.
  public func makeAsyncIterator() -> Iterator {
    let source = start()
    return Iterator(elements: source.elements.makeAsyncIterator(), lifetime: Lifetime(source.stop))
  }

  /// Iterates the elements of one started source.
  public struct Iterator: AsyncIteratorProtocol {
    /// The elements.
    private var elements: AsyncStream<Element>.Iterator
    /// Stops the source when the last copy of the iterator goes away.
    private let lifetime: Lifetime

    init(elements: AsyncStream<Element>.Iterator, lifetime: Lifetime) {
      self.elements = elements
      self.lifetime = lifetime
    }

    /// The next element, or `nil` once the input ended or the task was cancelled.
    public mutating func next() async -> Element? {
      await elements.next(isolation: #isolation)
    }

    /// The next element, or `nil` once the input ended or the task was cancelled, waited for on
    /// the caller's actor.
    public mutating func next(isolation actor: isolated (any Actor)?) async -> Element? {
      await elements.next(isolation: actor)
    }
  }

  /// Calls a source's stop function when the last iterator holding it goes away.
  final class Lifetime: Sendable {
    private let stop: @Sendable () -> Void

    init(_ stop: @escaping @Sendable () -> Void) {
      self.stop = stop
    }

    deinit { stop() }
  }
}
