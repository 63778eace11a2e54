import Foundation
import Observation
import ReduxKit
import TerminalIO

/// Search as you type: each keystroke updates the query at once, and the search itself runs
/// once typing pauses (a debounced procedure, served from the query cache while fresh).
struct SearchScreen: FeatureReducer {
  @Observable
  final class State: NavigatableState {
    typealias R = SearchScreen
    var query = ""
    /// The results of `searchedQuery`, which lags `query` while typing.
    var results: [Card] = []
    var searchedQuery: String?
    var selected = 0
    var detail: CardDetailScreen.State?
  }

  enum Action: Sendable {
    case key(Key)
    case searched(String, [Card])
  }

  /// How long typing must pause before the search runs.
  static let debounce = Duration.milliseconds(150)

  let session: BoardSession

  func reduce(into state: State, action: Action) -> Procedure<Action, State> {
    switch action {
    case .searched(let query, let results):
      state.searchedQuery = query
      state.results = results
      state.selected = min(state.selected, max(results.count - 1, 0))
    case .key(.character(let character)):
      state.query.append(character)
      return search(state.query)
    case .key(.paste(let text)):
      state.query += BoardText.oneLine(text)
      return search(state.query)
    case .key(.backspace):
      guard !state.query.isEmpty else { return .none }
      state.query.removeLast()
      return search(state.query)
    case .key(.down):
      state.selected = min(state.selected + 1, max(state.results.count - 1, 0))
    case .key(.up):
      state.selected = max(state.selected - 1, 0)
    case .key(.enter):
      guard state.results.indices.contains(state.selected) else { return .none }
      state.detail = CardDetailScreen.State(cardID: state.results[state.selected].id)
      route(
        childState: \.detail, to: { _ in nil }, reducer: CardDetailScreen(session: session),
        with: state)
    case .key(.escape):
      pop(with: state)
    case .key:
      break
    }
    return .none
  }

  @MainActor
  private func search(_ query: String) -> Procedure<Action, State> {
    let text = query.trimmingCharacters(in: .whitespaces)
    guard !text.isEmpty else {
      return .task { .searched(query, []) }.admitted(id: "search", policy: .latest)
    }
    return .task { .searched(query, await session.search(text)) }
      .admitted(id: "search", policy: .debounce(Self.debounce))
  }
}
