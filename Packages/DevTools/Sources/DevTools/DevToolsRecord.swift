/// One entry of a recorded session: an action a store ran or refused, a feature's action, or a
/// query cache event; what happened, and the state after it. One line of a session file.
public struct DevToolsRecord: Sendable, Hashable, Codable {
  /// What the entry is about.
  public enum Kind: String, Sendable, Codable {
    /// An action of the recorded store.
    case action
    /// An action sent to a FeatureKit `FeatureStore`.
    case feature
    /// A `QueryClient` event: a fetch, a hit, an invalidation, a collection.
    case query
    /// Time travel resumed with actions left out: the payload lists the skipped entries'
    /// indices, the state is the recomputed one the store went on from. A replay recomputes
    /// there too, so that it ends where the app did.
    case travel
  }

  /// What happened to an action.
  public enum Outcome: String, Sendable, Codable {
    /// Every middleware forwarded it and the reducers ran.
    case reduced
    /// A middleware did not forward it (``DevToolsRecord/detail`` names it).
    case stopped
    /// A middleware threw or resolved an error (``DevToolsRecord/detail`` says it).
    case failed
    /// The store refused it: it never ran (``DevToolsRecord/detail`` says why).
    case refused
    /// Not an action of the store: a feature's action or a query event.
    case event
  }

  /// Its place in the session, from 1; 0 is the state the recording started from.
  public let index: Int
  /// What the entry is about: a store's action, a feature's action, a query event.
  public let kind: Kind
  /// The action's id, the feature action's name, or the query event and key.
  public let name: String
  /// The action as dispatched, encoded.
  public let payload: JSONValue?
  /// Who dispatched it: `caller`, `middleware <id>`, `resolver <id>`, `remote` (as the app
  /// classifies it), a feature's name, or `query`.
  public let source: String
  /// What happened to the action.
  public let outcome: Outcome
  /// Which middleware stopped it, the error, or the refusal.
  public let detail: String?
  /// When, in seconds since the recording started, on the recorder's clock.
  public let time: Double
  /// How long its synchronous pipeline took, in seconds.
  public let duration: Double?
  /// The state after it (the app's projection), when the store ran it.
  public let state: JSONValue?
  /// How long each middleware, reducer and resolver took, in seconds, by stage
  /// (`middleware <id>`…): what the store's `onLog` reported while the action ran, when the
  /// recorder was given it (``DevToolsRecorder/log(_:)``).
  public let timings: [String: Double]?
  /// What the action touched, in the app's words (`#12 → Done`), when the recorder was given a
  /// `summary` for its actions: the timeline's row shows it instead of the payload.
  public let summary: String?

  /// A record with every field given (a recorder makes them; tests and tools may too).
  public init(
    index: Int, kind: Kind, name: String, payload: JSONValue?, source: String, outcome: Outcome,
    detail: String?, time: Double, duration: Double?, state: JSONValue?,
    timings: [String: Double]? = nil, summary: String? = nil
  ) {
    self.index = index
    self.kind = kind
    self.name = name
    self.payload = payload
    self.source = source
    self.outcome = outcome
    self.detail = detail
    self.time = time
    self.duration = duration
    self.state = state
    self.timings = timings
    self.summary = summary
  }
}

extension DevToolsRecord {
  /// The record without its state: what a timeline's row shows (a state is fetched for the one
  /// record a developer opens).
  public func withoutState() -> DevToolsRecord {
    DevToolsRecord(
      index: index, kind: kind, name: name, payload: payload, source: source, outcome: outcome,
      detail: detail, time: time, duration: duration, state: nil, timings: timings,
      summary: summary)
  }
}

/// The first line of a session file: what wrote it.
public struct DevToolsSessionHeader: Sendable, Hashable, Codable {
  /// The format's name: "reduxkit-devtools".
  public let format: String
  /// The format's version: 1.
  public let version: Int
  /// The app's name, as the recorder was told.
  public let app: String

  /// The version this build writes and the newest it reads.
  public static let currentVersion = 1

  /// The header of a session of `app`, in the current format.
  public init(app: String) {
    format = "reduxkit-devtools"
    version = Self.currentVersion
    self.app = app
  }
}
