/// A project's publishable key: `pk_[local_|dev_|stg_]{sdbx|live}_<project>_<key>`.
///
/// Exactly two non-empty segments follow the prefix; the project id is `prj_<project>`
/// (OMS-REFERENCE "Rules the public sources state").
public struct PublishableKey: Hashable, Sendable, CustomStringConvertible {
    /// The service environment a key belongs to.
    public enum Environment: String, Sendable, CaseIterable {
        case local, dev, stg, production = ""
    }

    public let rawValue: String
    public let environment: Environment
    /// `true` for a sandbox (`sdbx`) key, `false` for `live`.
    public let isSandbox: Bool
    /// The project segment.
    public let project: String
    /// The key segment.
    public let key: String

    /// The scope that signed requests name: `prj_<project>`.
    public var projectId: String { "prj_\(project)" }

    /// Parses a publishable key; throws `InvalidPublishableKey` ("Invalid publishableKey.").
    public init(_ text: String) throws(InvalidPublishableKey) {
        var parts = text.split(separator: "_", omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 4, parts[0] == "pk" else { throw InvalidPublishableKey() }
        parts.removeFirst()
        var environment = Environment.production
        if let env = Environment(rawValue: parts[0]), env != .production {
            environment = env
            parts.removeFirst()
        }
        guard parts.count == 3, parts[0] == "sdbx" || parts[0] == "live", !parts[1].isEmpty, !parts[2].isEmpty
        else { throw InvalidPublishableKey() }
        self.rawValue = text
        self.environment = environment
        self.isSandbox = parts[0] == "sdbx"
        self.project = parts[1]
        self.key = parts[2]
    }

    /// Builds a local sandbox key for a project, as `walletops core init` does.
    public static func localSandbox(project: String, key: String) throws(InvalidPublishableKey) -> PublishableKey {
        try PublishableKey("pk_local_sdbx_\(project)_\(key)")
    }

    public var description: String { rawValue }
}

/// A publishable key that does not have the documented form.
public struct InvalidPublishableKey: Error, Hashable, Sendable, CustomStringConvertible {
    public init() {}
    public var description: String { "Invalid publishableKey." }
}
