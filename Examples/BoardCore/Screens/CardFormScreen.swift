import Foundation
import Observation
import ReduxKit
import TerminalIO

/// The form that makes a card or edits one: a field per line, Tab to the next one, Enter to
/// save, Esc to cancel. A value the board refuses (an empty title, a date that is not one)
/// keeps the form open with the reason.
struct CardFormScreen: FeatureReducer {
  @Observable
  final class State: NavigatableState {
    typealias R = CardFormScreen

    enum Purpose: Equatable {
      case newCard(column: String)
      case edit(Card)
    }

    let purpose: Purpose
    /// The fields, in order; a new card has a title only (details are edited afterwards).
    var fields: [Field]
    var focus = 0
    var error: String?

    var isNewCard: Bool {
      if case .newCard = purpose { true } else { false }
    }

    init(newCardIn column: String) {
      purpose = .newCard(column: column)
      fields = [Field(.title, text: "")]
    }

    /// The form that edits `card`, its fields filled from `draft` when the user's last edit of
    /// it lost a race with another board (what they typed is not thrown away).
    init(editing card: Card, draft: Card? = nil) {
      purpose = .edit(card)
      let text = draft ?? card
      fields = [
        Field(.title, text: text.title),
        Field(.notes, text: text.notes),
        Field(.tags, text: text.tags.joined(separator: " ")),
        Field(.due, text: text.due.map(BoardText.day) ?? ""),
      ]
    }
  }

  struct Field: Equatable {
    enum Name: String {
      case title, notes, tags, due
    }

    let name: Name
    var text: String

    init(_ name: Name, text: String) {
      self.name = name
      self.text = text
    }
  }

  enum Action: Sendable {
    case key(Key)
    case saved
  }

  /// What the form tells the screen that opened it.
  enum Event {
    /// The card was saved; the form closes itself.
    case saved
  }

  let session: BoardSession

  func reduce(into state: State, action: Action) -> Procedure<Action, State> {
    switch action {
    case .saved:
      fireEvent(.saved, with: state)
      dismiss(with: state)
    case .key(let key):
      return type(key, into: state)
    }
    return .none
  }

  @MainActor
  private func type(_ key: Key, into state: State) -> Procedure<Action, State> {
    switch key {
    case .tab, .down:
      state.focus = (state.focus + 1) % state.fields.count
    case .backTab, .up:
      state.focus = (state.focus + state.fields.count - 1) % state.fields.count
    case .backspace:
      if !state.fields[state.focus].text.isEmpty { state.fields[state.focus].text.removeLast() }
    case .character(let character):
      state.fields[state.focus].text.append(character)
      state.error = nil
    case .paste(let text):
      // NB: one insertion, whatever its length: a field is one line.
      state.fields[state.focus].text += BoardText.oneLine(text)
      state.error = nil
    case .escape:
      dismiss(with: state)
    case .enter:
      do {
        let command = try Self.command(for: state)
        return .run { send in
          // NB: a refused change keeps the form open; the status line says why.
          guard !(await session.run(command, waitsForSave: false)).isError else { return }
          await send(.saved)
        }
      } catch {
        state.error = "\(error)"
      }
    default:
      break
    }
    return .none
  }

  /// The command that saves the form: the fields that changed, as one change (one undo step).
  @MainActor
  static func command(for state: State) throws(CommandError) -> Command {
    func text(_ name: Field.Name) -> String {
      (state.fields.first { $0.name == name }?.text ?? "").trimmingCharacters(in: .whitespaces)
    }
    guard !text(.title).isEmpty else { throw .emptyTitle }
    switch state.purpose {
    case .newCard(let column):
      return .add(column: column, title: text(.title))
    case .edit(let card):
      let tags = text(.tags).split(separator: " ").map { $0.lowercased() }
      let due = text(.due).isEmpty ? nil : try CommandParser.date(text(.due))
      var edits: [CardEdit] = []
      if text(.title) != card.title { edits.append(.title(text(.title))) }
      if text(.notes) != card.notes { edits.append(.notes(text(.notes))) }
      if tags != card.tags { edits.append(.tags(tags)) }
      if due != card.due { edits.append(.due(due)) }
      return .edit(card: card.id, edits)
    }
  }
}
