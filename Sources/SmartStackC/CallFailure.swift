import CSmartStack
import SmartStack

/// Why a call of the C interface failed: the status it returns and the message
/// `smartstack_last_error` gives.
struct CallFailure: Error {
    var status: smartstack_status
    var message: String

    init(_ status: smartstack_status, _ message: String) {
        self.status = status
        self.message = message
    }

    /// The one place where Swift errors become status codes, by their kind (never their text).
    init(_ error: any Error) {
        switch error {
        case let failure as CallFailure:
            self = failure
        case let error as JSONLError:
            self.init(SMARTSTACK_ERROR_INVALID_EVENT, error.description)
        case let error as StoreError:
            switch error.kind {
            case .busy: self.init(SMARTSTACK_ERROR_BUSY, error.description)
            case .invalidEvent: self.init(SMARTSTACK_ERROR_INVALID_EVENT, error.description)
            case .misuse: self.init(SMARTSTACK_ERROR_INTERNAL, error.description)
            case .cannotOpen, .notADatabase, .newerSchema, .readOnly, .full, .corrupt, .sqlite:
                self.init(SMARTSTACK_ERROR_STORAGE, error.description)
            }
        case let error as EngineError:
            switch error.kind {
            case .unknownPolicy, .invalidParameter: self.init(SMARTSTACK_ERROR_INVALID_POLICY, error.message)
            case .unknownStack: self.init(SMARTSTACK_ERROR_UNKNOWN_STACK, error.message)
            case .unknownUser: self.init(SMARTSTACK_ERROR_UNKNOWN_USER, error.message)
            case .invalidConfiguration, .invalidArgument, .invalidHistory, .invalidPrior:
                self.init(SMARTSTACK_ERROR_INVALID_ARGUMENT, error.message)
            case .invalidEvent: self.init(SMARTSTACK_ERROR_INVALID_EVENT, error.message)
            case .invalidSnapshot: self.init(SMARTSTACK_ERROR_STORAGE, error.message)
            case .closed: self.init(SMARTSTACK_ERROR_CLOSED, error.message)
            }
        default:
            self.init(SMARTSTACK_ERROR_INTERNAL, String(describing: error))
        }
    }
}
