import Foundation

/// A usage report's HTML as scripts/render-report.sh leaves it: rendered in headless Chromium at
/// 1280x800 (a screenshot) and printed to PDF (its text read back with pdftotext), kept in a folder
/// under .build/test-output for review.
public struct RenderedReport {
    /// Where the screenshot, the PDF and its text are.
    public let folder: URL
    /// The screenshot's bytes (PNG).
    public let screenshot: Data
    /// The printed PDF's text.
    public let printedText: String

    /// Renders `html` into `.build/test-output/<name>`; nil (with the script's message printed) when the
    /// script skipped, which it does only outside CI when chromium or pdftotext is missing.
    ///
    /// - Throws: when the script fails, or its files are missing.
    public static func render(_ html: String, name: String) throws -> RenderedReport? {
        let folder = Fixtures.repositoryRoot.appendingPathComponent(".build/test-output/\(name)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let page = folder.appendingPathComponent("usage.html")
        try html.write(to: page, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [
            Fixtures.repositoryRoot.appendingPathComponent("scripts/render-report.sh").path, page.path, folder.path,
        ]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        let started = Date()
        try process.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        if process.terminationStatus == 77 {
            print("usage report not rendered: \(message)")
            return nil
        }
        guard process.terminationStatus == 0 else {
            throw RenderFailure(message: "render-report.sh exited \(process.terminationStatus): \(message)")
        }
        print("usage report rendered in \(Int(Date().timeIntervalSince(started) * 1000)) ms: \(folder.path)")
        return RenderedReport(
            folder: folder, screenshot: try Data(contentsOf: folder.appendingPathComponent("usage-1280x800.png")),
            printedText: try String(contentsOf: folder.appendingPathComponent("usage.pdf.txt"), encoding: .utf8))
    }

    /// The render script failed.
    public struct RenderFailure: Error, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }
}
