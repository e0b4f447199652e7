import Foundation
import SmartStack
import SmartStackDatasets

/// A fresh directory for one test's fixture files, deleted when the value goes away.
final class ImportFixtureDirectory {
    let path: String

    init() {
        path = FileManager.default.temporaryDirectory
            .appendingPathComponent("smartstack-import-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// Writes `text` to `name` and returns the file's path.
    @discardableResult
    func write(_ name: String, _ text: String) -> String {
        write(name, bytes: Array(text.utf8))
    }

    /// Writes `bytes` to `name` and returns the file's path.
    @discardableResult
    func write(_ name: String, bytes: [UInt8]) -> String {
        let file = path + "/" + name
        _ = FileManager.default.createFile(atPath: file, contents: Data(bytes))
        return file
    }
}

/// `time,screen_status\n100,1\n200,0\n` compressed with gzip (mtime 0).
let gzipScreenFixture: [UInt8] = [
    0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0x2b, 0xc9, 0xcc, 0x4d, 0xd5, 0x29, 0x4e, 0x2e,
    0x4a, 0x4d, 0xcd, 0x8b, 0x2f, 0x2e, 0x49, 0x2c, 0x29, 0x2d, 0xe6, 0x32, 0x34, 0x30, 0xd0, 0x31, 0xe4, 0x32,
    0x02, 0x92, 0x06, 0x5c, 0x00, 0x3d, 0xe6, 0xc3, 0xc0, 0x1f, 0x00, 0x00, 0x00,
]

extension Event {
    /// The app of an `app_launch`, else nil.
    var launchedApp: String? {
        if case .appLaunch(let app) = payload { return app }
        return nil
    }

    /// The widgets of a `stack_config`, else nil.
    var configuredWidgets: [WidgetConfig]? {
        if case .stackConfig(_, let widgets) = payload { return widgets }
        return nil
    }
}

/// Catches the ImportError thrown by `body` (nil if none).
func importError<T>(_ body: () throws(ImportError) -> T) -> ImportError? {
    do {
        _ = try body()
        return nil
    } catch {
        return error
    }
}
