/// A value path read by a template, such as `vars.count` or `steps.create.outputs.id`.
public struct TemplateReference: Sendable, Hashable {
    /// The path parts: the root (`vars`, `item`, `steps`, `env`, `secrets`) then names.
    public var path: [String]
    /// The character offset of the path in the template text.
    public var offset: Int

    /// The root name.
    public var root: String { path[0] }
}
