import Foundation
import KeyFormats
import Testing

/// Temporary files for reader tests; each test gets its own directory.
struct TestDirectory {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("keyformats-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// Writes `bytes` to `name` in the directory and returns the path.
    @discardableResult
    func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        let file = path + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        return file
    }

    @discardableResult
    func write(_ name: String, _ text: String) throws -> String { try write(name, Array(text.utf8)) }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// Asserts that `error` has `code`, its class, and that no form of the secret appears in its text.
func expectRefusal(
    _ error: KeyFormatError?, code: KeyFormatError.Code, errorClass: KeyFormatError.ErrorClass,
    secretForms: [String], sourceLocation: SourceLocation = #_sourceLocation
) {
    guard let error else {
        Issue.record("expected \(code), got success", sourceLocation: sourceLocation)
        return
    }
    #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
    #expect(error.errorClass == errorClass, "\(error)", sourceLocation: sourceLocation)
    let texts = [error.description, error.reason, String(describing: error), String(reflecting: error)]
    for form in secretForms where form.count >= 8 {
        for text in texts {
            #expect(
                !text.lowercased().contains(form.lowercased()), "error text shows key material",
                sourceLocation: sourceLocation)
        }
    }
}

extension Result {
    /// The failure, if any.
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

/// The error `body` throws, or nil.
func refusal<T>(_ body: () throws(KeyFormatError) -> T) -> KeyFormatError? {
    do {
        _ = try body()
        return nil
    } catch {
        return error
    }
}
