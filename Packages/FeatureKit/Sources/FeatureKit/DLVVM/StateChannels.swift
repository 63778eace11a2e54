import Logging

/// What listens to a state object: the parent that scoped it (events) and the navigator showing
/// it (routes). DLVVM hung Combine subjects on states with Objective-C associated objects; here
/// a MainActor table keyed by object identity does it, with no runtime tricks and synchronous
/// delivery.
@MainActor
enum StateChannels {
  private struct Channel {
    weak var state: AnyObject?
    var eventListeners: [Int: (Any) -> Void] = [:]
    weak var navigator: (any RouteHandling)?

    var isEmpty: Bool { eventListeners.isEmpty && navigator == nil }
  }

  private static var channels: [ObjectIdentifier: Channel] = [:]
  private static var nextToken = 0

  /// The logger of the view model whose reducer runs now: where a route refused with no
  /// navigator to log it is reported.
  private(set) static var reducingLogger: Logger?

  /// Runs `reduce` with `logger` as ``reducingLogger`` (a reducer may send to another view
  /// model, whose logger then applies until it returns).
  static func reducing<Result>(with logger: Logger, _ reduce: () -> Result) -> Result {
    let outer = reducingLogger
    reducingLogger = logger
    defer { reducingLogger = outer }
    return reduce()
  }

  /// Calls `listener` with every event fired with `state` until the token is removed.
  static func listen(to state: AnyObject, _ listener: @escaping (Any) -> Void) -> Int {
    nextToken += 1
    update(state) { $0.eventListeners[nextToken] = listener }
    return nextToken
  }

  static func stopListening(to state: ObjectIdentifier, token: Int) {
    guard var channel = channels[state] else { return }
    channel.eventListeners[token] = nil
    channels[state] = channel.isEmpty ? nil : channel
  }

  static func fire(_ event: Any, from state: AnyObject) {
    guard let channel = channel(of: state) else { return }
    for listener in channel.eventListeners.sorted(by: { $0.key < $1.key }) { listener.value(event) }
  }

  static func setNavigator(_ navigator: (any RouteHandling)?, for state: AnyObject) {
    update(state) { $0.navigator = navigator }
  }

  /// Drops the channel of `state` if nothing listens to it any more.
  static func prune(_ state: AnyObject) {
    update(state) { _ in }
  }

  /// Whether anything listens to `state`.
  static func isListened(_ state: AnyObject) -> Bool {
    channel(of: state) != nil
  }

  static func navigator(of state: AnyObject) -> (any RouteHandling)? {
    channel(of: state)?.navigator
  }

  /// The channel of this very object; a channel left by a freed object at a reused address is
  /// not its.
  private static func channel(of state: AnyObject) -> Channel? {
    guard let channel = channels[ObjectIdentifier(state)], channel.state === state else {
      return nil
    }
    return channel
  }

  private static func update(_ state: AnyObject, _ change: (inout Channel) -> Void) {
    var channel = channel(of: state) ?? Channel(state: state)
    change(&channel)
    channels[ObjectIdentifier(state)] = channel.isEmpty ? nil : channel
  }
}
