import ReduxKit

/// The inbox: a list of messages; opening one pushes its screen.
final class Inbox: FeatureReducer {
  @Observable final class State: NavigatableState {
    typealias R = Inbox
    var messages: [Int: String] = [1: "Lunch on Friday?", 2: "Build is green", 3: "Release notes"]
    var replied: Set<Int> = []
    var message: Message.State?
    var notices: [String] = []
  }

  enum Action: Sendable {
    case open(Int)
    case message(Message.Event)
  }

  func reduce(into state: State, action: Action) -> Procedure<Action, State> {
    switch action {
    case .open(let id):
      guard let subject = state.messages[id] else {
        state.notices.append("no message \(id)")
        return .none
      }
      state.message = Message.State(id: id, subject: subject)
      if let refusal = route(
        childState: \.message, to: Action.message, reducer: Message(), routeStyle: .push,
        with: state)
      {
        state.notices.append("\(refusal)")
      }
    case .message(.replied(let id)):
      state.replied.insert(id)
    }
    return .none
  }
}

/// One message; replying presents the composer.
final class Message: FeatureReducer {
  @Observable final class State: NavigatableState {
    typealias R = Message
    let id: Int
    let subject: String
    var reply: Reply.State?
    var sentReplies: [String] = []

    init(id: Int, subject: String) {
      self.id = id
      self.subject = subject
    }
  }

  enum Action: Sendable {
    case compose
    case composer(Reply.Event)
  }

  enum Event {
    case replied(Int)
  }

  func reduce(into state: State, action: Action) -> Procedure<Action, State> {
    switch action {
    case .compose:
      state.reply = Reply.State()
      // A refused route is logged by FeatureKit; the message screen simply stays.
      route(
        childState: \.reply, to: Action.composer, reducer: Reply(), routeStyle: .present,
        with: state)
    case .composer(.sent(let text)):
      state.sentReplies.append(text)
      fireEvent(.replied(state.id), with: state)
    }
    return .none
  }
}

/// The reply composer: sending tells the message, then dismisses itself.
final class Reply: FeatureReducer {
  @Observable final class State: NavigatableState {
    typealias R = Reply
    var text = ""
  }

  enum Action: Sendable {
    case type(String)
    case send
    case cancel
  }

  enum Event {
    case sent(String)
  }

  func reduce(into state: State, action: Action) -> Procedure<Action, State> {
    switch action {
    case .type(let text):
      state.text = text
    case .send:
      fireEvent(.sent(state.text), with: state)
      dismiss(with: state)
    case .cancel:
      dismiss(with: state)
    }
    return .none
  }
}
