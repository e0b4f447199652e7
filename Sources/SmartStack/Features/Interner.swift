/// Maps strings (widget, app, stack, place ids) to dense small integers so hot paths index
/// arrays instead of hashing strings. Encodes as its list of names only.
struct Interner: Sendable, Codable {
    private(set) var names: [String] = []
    private var indices: [String: Int32] = [:]

    init() {}

    var count: Int { names.count }

    /// The index of `name`, adding it if new.
    mutating func intern(_ name: String) -> Int32 {
        if let i = indices[name] { return i }
        let i = Int32(names.count)
        names.append(name)
        indices[name] = i
        return i
    }

    /// The index of `name` if already known.
    func index(of name: String) -> Int32? { indices[name] }

    subscript(i: Int32) -> String { names[Int(i)] }

    init(from decoder: any Decoder) throws {
        var c = try decoder.unkeyedContainer()
        while !c.isAtEnd { _ = intern(try c.decode(String.self)) }
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.unkeyedContainer()
        for n in names { try c.encode(n) }
    }
}
