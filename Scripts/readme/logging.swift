// What README.md's logging example takes as given.
import ReduxKit

@MainActor @Observable
final class AppState: ReduxState {
  var count = 0
}

enum AppAction: ReduxAction {
  case increment
}

let app = AnyReducer<AppState, AppAction>(id: "app") { context in context.state.count += 1 }
