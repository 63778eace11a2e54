/// `swift run counter`: a ReduxCore store with middlewares, a resolver and a rate limit.
@main
struct CounterApp {
  @MainActor
  static func main() async {
    await CounterDemo.run(output: Output(echo: true))
  }
}
