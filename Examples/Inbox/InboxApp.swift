/// `swift run inbox [COMMAND ...]`: a three-screen navigation flow (inbox → message → reply) in
/// the terminal. With arguments it runs them as a script; without, it reads commands from
/// standard input.
@main
struct InboxApp {
  @MainActor
  static func main() {
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
    while let command = readLine(), command != "quit" {
      print(demo.run(command))
    }
  }
}
