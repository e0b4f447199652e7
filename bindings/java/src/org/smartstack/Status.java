package org.smartstack;

/** The status codes of include/smartstack.h ({@code SMARTSTACK_OK}, {@code SMARTSTACK_ERROR_...}). */
public enum Status {
    OK(0),
    NULL_ARGUMENT(1),
    INVALID_UTF8(2),
    INVALID_ARGUMENT(3),
    CLOSED(4),
    INVALID_EVENT(5),
    UNKNOWN_STACK(6),
    UNKNOWN_USER(7),
    INVALID_POLICY(8),
    STORAGE(9),
    BUSY(10),
    INTERNAL(11);

    /** The value in the header. */
    public final int code;

    Status(int code) {
        this.code = code;
    }

    /** The status with this code ({@link #INTERNAL} for a code this binding does not know). */
    public static Status of(int code) {
        for (Status status : values()) {
            if (status.code == code) return status;
        }
        return INTERNAL;
    }
}
