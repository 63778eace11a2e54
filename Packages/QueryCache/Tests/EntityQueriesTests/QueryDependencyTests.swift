import QueryCache
import Testing

@testable import EntityQueries

/// Which queries a change touches, as tables: the dependency's rule, a change, the targets.
@Suite struct QueryDependencyTests {
  static let todo = Card(id: 1, columnID: 1, title: "alpha", tags: ["red"])
  static let retitled = Card(id: 1, columnID: 1, title: "omega", tags: ["red"])
  static let moved = Card(id: 1, columnID: 2, title: "alpha", tags: ["red"])
  static let other = Card(id: 2, columnID: 1, title: "beta")

  static let byColumn = QueryDependency<Card>.queries(keyedBy: { [QueryKey("count", $0.columnID)] })
  static let count1 = QueryTarget.key(QueryKey("count", 1))
  static let count2 = QueryTarget.key(QueryKey("count", 2))

  @Test(arguments: [
    // (dependency, change, targets)
    (
      QueryDependency<Card>.query("all"), EntityValueChange.insertion(todo),
      [QueryTarget.key("all")]
    ),
    (.query("all"), .deletion(todo), [.key("all")]),
    (.query("all"), .update(from: todo, to: retitled), [.key("all")]),
    (.query("one", ids: [1]), .update(from: todo, to: retitled), [.key("one")]),
    (.query("one", ids: [1]), .insertion(other), []),
    (.query("in1") { $0.columnID == 1 }, .update(from: todo, to: moved), [.key("in1")]),
    (.query("in1") { $0.columnID == 1 }, .update(from: moved, to: todo), [.key("in1")]),
    (.query("in2") { $0.columnID == 2 }, .update(from: todo, to: retitled), []),
    (.query("in2") { $0.columnID == 2 }, .deletion(moved), [.key("in2")]),
    (.queries(under: "search"), .insertion(todo), [.prefix("search")]),
    (.queries(under: "search", ids: [2]), .insertion(todo), []),
    (byColumn, .insertion(todo), [count1]),
    (byColumn, .deletion(moved), [count2]),
    (byColumn, .update(from: todo, to: retitled), [count1]),
    (byColumn, .update(from: todo, to: moved), [count1, count2]),
    (byColumn.reading(\.columnID), .update(from: todo, to: retitled), []),
    (byColumn.reading(\.columnID), .update(from: todo, to: moved), [count1, count2]),
    (byColumn.readingMembershipOnly(), .update(from: todo, to: retitled), []),
    (.query("all").reading(\.tags), .update(from: todo, to: retitled), []),
    (
      .query("in1") { $0.columnID == 1 }.readingMembershipOnly(), .update(from: todo, to: moved),
      [.key("in1")]
    ),
  ])
  func aChangeTouchesTheQueriesThatReadItsOldOrItsNewValue(
    dependency: QueryDependency<Card>, change: EntityValueChange<Card>, targets: [QueryTarget]
  ) {
    #expect(dependency.targets(touchedBy: change) == targets)
  }

  @Test func keysAValueGivesTwiceAreTouchedOnce() {
    let dependency = QueryDependency<Card>.queries(keyedBy: { _ in ["same", "same"] })
    #expect(dependency.targets(touchedBy: .insertion(Self.todo)) == [.key("same")])
    #expect(
      dependency.targets(touchedBy: .update(from: Self.todo, to: Self.moved)) == [.key("same")])
  }

  @Test(arguments: [
    // (change, count change for column 1)
    (EntityValueChange.insertion(todo), 1), (.deletion(todo), -1),
    (.update(from: todo, to: moved), -1),
    (.update(from: moved, to: todo), 1), (.update(from: todo, to: retitled), 0),
    (.insertion(moved), 0),
  ])
  func aChangeMovesACountByItsMembership(change: EntityValueChange<Card>, countChange: Int) {
    #expect(change.countChange { $0.columnID == 1 } == countChange)
  }

  @Test func aChangeNamesItsIdAndItsTwoValues() {
    let update = EntityValueChange.update(from: Self.todo, to: Self.moved)
    #expect(update.id == 1 && update.oldValue == Self.todo && update.newValue == Self.moved)
    #expect(EntityValueChange.insertion(Self.todo).oldValue == nil)
    #expect(EntityValueChange.deletion(Self.todo).newValue == nil)
  }
}
