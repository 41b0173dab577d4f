import Foundation
import Testing

/// The checks the reply-reader suites share: against the synthesized Codable, and on refused replies.
enum ReplyReaderChecks {
    /// Each text reads through `read` as `JSONDecoder` reads it.
    static func expectReadAsCodable<Reply: Decodable & Equatable>(
        _ texts: [String], _ read: ([UInt8]) throws -> Reply, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        for text in texts {
            let expected = try JSONDecoder().decode(Reply.self, from: Data(text.utf8))
            #expect(try read(Array(text.utf8)) == expected, "\(text)", sourceLocation: sourceLocation)
        }
    }

    /// Each case's text is refused by `read` with an error whose message contains the case's second part
    /// (the member at fault, or where the text stops being JSON).
    static func expectRefused(
        _ cases: [(String, String)], _ read: ([UInt8]) throws -> Void,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for (text, expected) in cases {
            do {
                try read(Array(text.utf8))
                Issue.record("\(text) was accepted", sourceLocation: sourceLocation)
            } catch {
                #expect("\(error)".contains(expected), "\(text): \(error)", sourceLocation: sourceLocation)
            }
        }
    }
}
