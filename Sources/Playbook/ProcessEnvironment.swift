import Foundation

/// Reads the process environment (one place, so tests can pass their own dictionaries elsewhere).
enum ProcessEnvironment {
    static func value(_ name: String) -> String? { ProcessInfo.processInfo.environment[name] }
}
