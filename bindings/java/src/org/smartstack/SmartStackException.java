package org.smartstack;

import java.nio.charset.StandardCharsets;

/** A call the engine refused: {@link #status()} says what kind of failure, the message what and where. */
public final class SmartStackException extends Exception {
    private static final long serialVersionUID = 1L;
    private final Status status;

    SmartStackException(Status status, String message) {
        super(message + " (" + status + ")");
        this.status = status;
    }

    /** Thrown from the JNI code with the library's status code and UTF-8 message. */
    SmartStackException(int code, byte[] message) {
        this(Status.of(code), new String(message, StandardCharsets.UTF_8));
    }

    public Status status() {
        return status;
    }
}
