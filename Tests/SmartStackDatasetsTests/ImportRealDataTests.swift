import Foundation
import SmartStack
import SmartStackDatasets
import Testing

/// The importers on the real recordings of `../shared/datasets` (PROVENANCE.md there).
@Suite struct ImportRealDataTests {
    @Test(.requiresSharedDatasets)
    func studentLifeForegroundAndGPS() throws {
        let result = try StudentLifeImporter().importFiles([
            try SharedDatasets.path("studentlife_small/foreground_snapshots_u00_u01_u02.csv"),
            try SharedDatasets.path("studentlife_small/gps_u00_u01_u02.csv"),
        ])
        print(result.report.summary)
        let report = result.report
        #expect(report.rowsRead == 14_562 + 16_464)
        #expect(Set(result.events.map(\.user)) == ["u00", "u01", "u02"])
        // Every GPS fix is a location; launches are fewer than snapshots (same-app runs and
        // excluded apps are not launches) but there are many.
        #expect(report.eventsByType[.location] == 16_464)
        let launches = report.eventsByType[.appLaunch] ?? 0
        #expect(launches > 1_000 && launches < 14_562)
        #expect(report.eventsByType[.stackConfig] == 3)
        #expect(report.rowsRead == report.rowsSkipped + launches + 16_464)
        // Excluded apps never appear as launches.
        let apps = Set(result.events.compactMap { e -> String? in
            if case .appLaunch(let app) = e.payload { return app } else { return nil }
        })
        #expect(!apps.contains("com.google.android.apps.paco"))
        #expect(!apps.contains("com.android.launcher"))
        #expect(apps.contains("com.google.android.gm"))
        // Spring term 2013 in Hanover: daylight time (EDT) from 10 March to 3 November.
        let dstStart: Int64 = 1_362_898_800, dstEnd: Int64 = 1_383_458_400
        for e in result.events {
            let seconds = e.time.nanosecondsSinceEpoch / 1_000_000_000
            #expect(e.time.utcOffsetSeconds == (seconds >= dstStart && seconds < dstEnd ? -14_400 : -18_000))
        }
        for e in result.events where e.type == .stackConfig {
            if case .stackConfig(_, let widgets) = e.payload { print(e.user, e.time.rfc3339, widgets.map(\.id)) }
        }
        try expectOrderedAndUniquelyIdentified(result.events)
    }

    @Test(.requiresSharedDatasets)
    func studentLifeRunningAppsGivesTheSameLaunchesAsForegroundSnapshots() throws {
        let fromRunning = try StudentLifeImporter().importFiles([
            try SharedDatasets.path("studentlife_small/running_apps_u00_u01_u02.csv.gz"),
        ])
        let fromForeground = try StudentLifeImporter().importFiles([
            try SharedDatasets.path("studentlife_small/foreground_snapshots_u00_u01_u02.csv"),
        ])
        print(fromRunning.report.summary)
        #expect(fromRunning.report.rowsRead == 145_690)
        #expect(fromRunning.events == fromForeground.events)
    }

    @Test(.requiresSharedDatasets, arguments: ["random", "bts"])
    func openBanditLog(policy: String) throws {
        let result = try OBDImporter().importFiles([
            try SharedDatasets.path("obd/\(policy)_all.csv.gz"),
            try SharedDatasets.path("obd/\(policy)_item_context.csv"),
        ])
        print(result.report.summary)
        #expect(result.report.eventsByType[.widgetImpression] == 10_000)
        #expect(result.report.eventsByType[.stackConfig] == 3)
        let taps = result.report.eventsByType[.widgetTap] ?? 0
        #expect(taps > 0 && taps < 200)
        // Each stack is configured before its first impression, with the 80-item catalogue.
        var configured: Set<String> = []
        for e in result.events {
            switch e.payload {
            case .stackConfig(let stack, let widgets):
                #expect(widgets.count == 80)
                configured.insert(stack)
            case .widgetImpression(let stack, _, let propensity, let p):
                #expect(configured.contains(stack))
                #expect(p == policy)
                #expect(propensity.map { $0 > 0 && $0 <= 1 } == true)
            default:
                break
            }
        }
        try expectOrderedAndUniquelyIdentified(result.events)
    }

    @Test(.requiresSharedDatasets)
    func awareScreen() throws {
        let result = try AwareScreenImporter().importFiles([
            try SharedDatasets.path("aware_screen/AwareScreen_1month.csv.gz"),
        ])
        print(result.report.summary)
        #expect(result.report.rowsRead == 5_278)
        let on = result.report.eventsByType[.screenOn] ?? 0
        // At most one per status-1/3 row (2,420), at least one per status-1 row that follows
        // a screen off... roughly: between the on count and on+unlock count.
        #expect(on >= 1_000 && on <= 1_500 + 920)
        #expect(result.events.allSatisfy { $0.user == Event.defaultUser && $0.type == .screenOn })
        try expectOrderedAndUniquelyIdentified(result.events)
    }
}

/// Events are grouped by user in ascending order, in time order within a user, with unique ids.
func expectOrderedAndUniquelyIdentified(_ events: [Event], sourceLocation: SourceLocation = #_sourceLocation) throws {
    var ids: Set<String> = []
    for (a, b) in zip(events, events.dropFirst()) {
        #expect(a.user <= b.user, sourceLocation: sourceLocation)
        if a.user == b.user {
            #expect(a.time.nanosecondsSinceEpoch <= b.time.nanosecondsSinceEpoch, sourceLocation: sourceLocation)
        }
    }
    for e in events {
        let id = try #require(e.id, sourceLocation: sourceLocation)
        #expect(ids.insert(id).inserted, sourceLocation: sourceLocation)
    }
}

@Suite struct ImportSharedDatasetsHelperTests {
    @Test func aMissingFileIsAnErrorSayingWhereItWasLookedFor() {
        #expect {
            _ = try SharedDatasets.path("no-such-dataset/file.csv")
        } throws: { error in
            "\(error)".contains("no-such-dataset/file.csv") && "\(error)".contains("SMARTSTACK_DATASETS")
        }
    }

    @Test func theDirectoryIsTheSharedFolderBesideThePackageUnlessOverridden() {
        let expected = SharedDatasets.expectedDirectory
        if let override = ProcessInfo.processInfo.environment["SMARTSTACK_DATASETS"], !override.isEmpty {
            #expect(expected == override)
        } else {
            #expect(expected.hasSuffix("/shared/datasets"))
        }
    }
}
