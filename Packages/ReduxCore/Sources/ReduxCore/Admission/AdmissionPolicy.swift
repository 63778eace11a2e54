/// How a store admits dispatches of one action id, or a ``TaskManager`` starts tasks of one id.
///
/// Nothing a policy turns away is lost silently: a dispatch that is superseded or throttled
/// reaches its caller (`false`, a thrown ``DispatchError``, a ``DispatchOutcome``) and `onLog`;
/// a task that never starts is reported to its `onRefusal`.
///
/// ```swift
/// store.dispatch(.search(text), policy: .debounce(.milliseconds(300), maxWait: .seconds(1)))
/// store.dispatch(.refresh, policy: .throttle(.seconds(5)))
/// store.dispatch(.load(id), policy: .latest)
/// ```
public enum AdmissionPolicy: Sendable, Hashable {
  /// At most `n` pending at once (dispatched and not processed yet; running, for tasks);
  /// more are refused. TinyRedux's `maxDispatchable`. `limit(0)` is unlimited.
  case limit(UInt)
  /// A new one replaces the pending one: the replaced dispatch is reported as superseded (a
  /// replaced task is cancelled).
  case latest
  /// Admits the last one after `interval` of quiet, and at most `maxWait` after the first one
  /// held (a steady stream still gets through); each newer one supersedes the one held.
  case debounce(Duration, maxWait: Duration? = nil)
  /// At most one admitted per `interval`. `leading`: the first of a quiet period goes at once;
  /// `trailing`: the last one arriving during the interval goes when it ends (superseding the
  /// one held before it); without `trailing` those are refused as throttled. With neither,
  /// `leading` is used.
  case throttle(Duration, leading: Bool = true, trailing: Bool = true)

  /// Whether the policy needs a timer (it holds dispatches until a deadline).
  @inlinable
  var isTimed: Bool {
    switch self {
    case .limit, .latest: false
    case .debounce, .throttle: true
    }
  }
}
