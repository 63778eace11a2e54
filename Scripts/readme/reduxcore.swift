// What README.md's "ReduxCore in one screen" takes as given.
import ReduxCore

@MainActor @Observable
final class AppState: ReduxState {
  var count = 0
  func apply(_ action: AppAction) { count += 1 }
}

enum AppAction: ReduxAction {
  case refresh, save, load, recovered
  case search(String)
  case delete(Int)
}

let text = "swift"
// The last lines run in a middleware, where `context` is its closure's parameter.
let context: MiddlewareContext<AppState, AppAction> = readmeUnavailable()
