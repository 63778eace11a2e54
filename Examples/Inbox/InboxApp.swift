import TerminalIO

/// `swift run inbox [COMMAND ...]`: a three-screen navigation flow (inbox → message → reply) in
/// the terminal. With arguments it runs them as a script; without, it reads commands from
/// standard input until `quit`.
@main
struct InboxApp {
  @MainActor
  static func main() async {
    let demo = InboxDemo()
    print(demo.render())
    let script = CommandLine.arguments.dropFirst()
    if !script.isEmpty {
      for command in script {
        print("\n$ \(command)\n\(demo.run(command))")
      }
      return
    }
    print(InboxDemo.help)
    // NB: an async reader, not a blocking `readLine()`: the main actor, where the view models'
    // procedures run, keeps running while it waits for a line.
    let prompt = Terminal.isInputTerminal ? "inbox> " : nil
    if let prompt { Terminal.write(prompt) }
    for await command in LineReader.standardInput.lines {
      if command.trimmingPrefix(" ") == "quit" { break }
      let output = demo.run(command)
      if !output.isEmpty { print(output) }
      if let prompt { Terminal.write(prompt) }
    }
  }
}
