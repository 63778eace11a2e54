/// The lines of `actual`'s dump that differ from `expected`'s, as a unified diff: `−` for what
/// was expected and is missing, `+` for what is there instead, two spaces for context.
///
/// ```
///   State(
///     todos: [
///       Todo(
/// −       title: "Buy milk",
/// +       title: "Buy milk!",
/// ```
///
/// The dumps are `Swift.dump`'s; the diff is the standard library's `CollectionDifference`
/// over their lines, shown with up to `context` unchanged lines around each change.
func stateDiff<Value>(expected: Value, actual: Value, context: Int = 2) -> String {
  let old = dumpLines(expected)
  let new = dumpLines(actual)
  let difference = new.difference(from: old)
  var removed = Set<Int>()
  var inserted = Set<Int>()
  for change in difference {
    switch change {
    case .remove(let offset, _, _): removed.insert(offset)
    case .insert(let offset, _, _): inserted.insert(offset)
    }
  }
  // NB: walks both dumps in step: a removed old line or an inserted new line is a change;
  // lines neither touched are the same line in both.
  var rows: [(mark: Character, line: String)] = []
  var oldIndex = 0
  var newIndex = 0
  while oldIndex < old.count || newIndex < new.count {
    if oldIndex < old.count, removed.contains(oldIndex) {
      rows.append(("−", old[oldIndex]))
      oldIndex += 1
    } else if newIndex < new.count, inserted.contains(newIndex) {
      rows.append(("+", new[newIndex]))
      newIndex += 1
    } else {
      rows.append((" ", new[newIndex]))
      oldIndex += 1
      newIndex += 1
    }
  }
  let changed = rows.indices.filter { rows[$0].mark != " " }
  let shown = Set(
    changed.flatMap { max(0, $0 - context)...min(rows.count - 1, $0 + context) })
  var lines: [String] = []
  for index in rows.indices where shown.contains(index) {
    if index > 0, !shown.contains(index - 1), !lines.isEmpty { lines.append("  …") }
    lines.append("\(rows[index].mark) \(rows[index].line)")
  }
  return lines.joined(separator: "\n")
}

private func dumpLines<Value>(_ value: Value) -> [String] {
  var text = ""
  dump(value, to: &text)
  return text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    .filter { !$0.isEmpty }
}
