// A ReduxCore state is an `@Observable` class: the macro and the Observation API come with
// `import ReduxCore` (and `import ReduxKit`), so an app needs no second import to declare one.
@_exported public import Observation
