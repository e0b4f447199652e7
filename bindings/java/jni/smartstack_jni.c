/*
 * JNI glue of org.smartstack.SmartStack over the C API (include/smartstack.h). Strings cross as
 * UTF-8 byte arrays (JNI's modified UTF-8 would mangle NUL and characters beyond U+FFFF); a failed
 * call throws org.smartstack.SmartStackException with the status and the library's message.
 */
#include <jni.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "smartstack.h"

#define ENGINE(handle) ((smartstack_engine *)(intptr_t)(handle))

/* A NUL-terminated copy of a Java byte[]: in `small` when it fits, else from malloc. */
typedef struct {
    char *text;
    char small[256];
} c_string;

static void throw_out_of_memory(JNIEnv *env) {
    jclass type = (*env)->FindClass(env, "java/lang/OutOfMemoryError");
    if (type) (*env)->ThrowNew(env, type, "smartstack_jni: no memory for a string argument");
}

/* Fills `out` (text NULL for a null array); returns 0 with an exception pending on failure. */
static int c_string_init(JNIEnv *env, jbyteArray bytes, c_string *out) {
    out->text = NULL;
    if (!bytes) return 1;
    jsize length = (*env)->GetArrayLength(env, bytes);
    char *text = (size_t)length < sizeof out->small ? out->small : malloc((size_t)length + 1);
    if (!text) {
        throw_out_of_memory(env);
        return 0;
    }
    (*env)->GetByteArrayRegion(env, bytes, 0, length, (jbyte *)text);
    text[length] = '\0';
    out->text = text;
    return 1;
}

static void c_string_free(c_string *string) {
    if (string->text != string->small) free(string->text);
}

static jbyteArray new_bytes(JNIEnv *env, const char *text, size_t length) {
    jbyteArray bytes = (*env)->NewByteArray(env, (jsize)length);
    if (bytes) (*env)->SetByteArrayRegion(env, bytes, 0, (jsize)length, (const jbyte *)text);
    return bytes;
}

/* Throws SmartStackException(status, last error) unless `status` is OK; returns whether it was. */
static int check(JNIEnv *env, smartstack_status status, smartstack_engine *engine) {
    if (status == SMARTSTACK_OK) return 1;
    const char *message = smartstack_last_error(engine);
    jclass type = (*env)->FindClass(env, "org/smartstack/SmartStackException");
    if (!type) return 0;
    jmethodID init = (*env)->GetMethodID(env, type, "<init>", "(I[B)V");
    jbyteArray text = init ? new_bytes(env, message, strlen(message)) : NULL;
    if (!text) return 0;
    jobject exception = (*env)->NewObject(env, type, init, (jint)status, text);
    if (exception) (*env)->Throw(env, (jthrowable)exception);
    return 0;
}

JNIEXPORT jbyteArray JNICALL Java_org_smartstack_SmartStack_nativeVersion(JNIEnv *env, jclass type) {
    (void)type;
    const char *version = smartstack_version();
    return new_bytes(env, version, strlen(version));
}

JNIEXPORT jlong JNICALL Java_org_smartstack_SmartStack_open(JNIEnv *env, jclass type, jbyteArray path, jbyteArray policy,
                                                             jbyteArray rotation, jlong seed) {
    (void)type;
    c_string p, q, r;
    smartstack_engine *engine = NULL;
    if (c_string_init(env, path, &p)) {
        if (c_string_init(env, policy, &q)) {
            if (c_string_init(env, rotation, &r)) {
                check(env, smartstack_open(p.text, q.text, r.text, (uint64_t)seed, &engine), NULL);
                c_string_free(&r);
            }
            c_string_free(&q);
        }
        c_string_free(&p);
    }
    return (jlong)(intptr_t)engine;
}

JNIEXPORT jlong JNICALL Java_org_smartstack_SmartStack_openWithPrior(JNIEnv *env, jclass type, jbyteArray path, jbyteArray policy,
                                                                      jbyteArray rotation, jlong seed, jbyteArray prior) {
    (void)type;
    c_string p, q, r, o;
    smartstack_engine *engine = NULL;
    if (c_string_init(env, path, &p)) {
        if (c_string_init(env, policy, &q)) {
            if (c_string_init(env, rotation, &r)) {
                if (c_string_init(env, prior, &o)) {
                    check(env, smartstack_open_with_prior(p.text, q.text, r.text, (uint64_t)seed, o.text, &engine), NULL);
                    c_string_free(&o);
                }
                c_string_free(&r);
            }
            c_string_free(&q);
        }
        c_string_free(&p);
    }
    return (jlong)(intptr_t)engine;
}

JNIEXPORT void JNICALL Java_org_smartstack_SmartStack_close(JNIEnv *env, jclass type, jlong handle) {
    (void)type;
    check(env, smartstack_close(ENGINE(handle)), ENGINE(handle));
}

JNIEXPORT void JNICALL Java_org_smartstack_SmartStack_flush(JNIEnv *env, jclass type, jlong handle) {
    (void)type;
    check(env, smartstack_flush(ENGINE(handle)), ENGINE(handle));
}

JNIEXPORT void JNICALL Java_org_smartstack_SmartStack_configure(JNIEnv *env, jclass type, jlong handle, jbyteArray user,
                                                                 jbyteArray stack, jobjectArray ids, jobjectArray apps,
                                                                 jlong at, jint offset) {
    (void)type;
    jsize count = (*env)->GetArrayLength(env, ids);
    /* strings: user, stack, the ids, the apps; pointers: the ids' then the apps' texts. */
    c_string *strings = calloc((size_t)count * 2 + 2, sizeof(c_string));
    const char **pointers = calloc((size_t)count * 2 + 1, sizeof(char *));
    jsize ready = 0;  /* strings initialised so far, each to be freed */
    int ok = strings && pointers;
    if (!ok) throw_out_of_memory(env);
    for (jsize i = 0; ok && i < 2 + count * 2; i++) {
        jbyteArray item = i == 0 ? user : stack;
        if (i >= 2) {
            jobjectArray array = i - 2 < count ? ids : apps;
            item = array ? (jbyteArray)(*env)->GetObjectArrayElement(env, array, (i - 2) % count) : NULL;
        }
        ok = c_string_init(env, item, &strings[i]);
        if (i >= 2 && item) (*env)->DeleteLocalRef(env, item);
        if (!ok) break;
        ready = i + 1;
        if (i >= 2) pointers[i - 2] = strings[i].text;
    }
    if (ok) {
        check(env, smartstack_configure(ENGINE(handle), strings[0].text, strings[1].text, pointers,
                                        apps ? pointers + count : NULL, (size_t)count, at, offset),
              ENGINE(handle));
    }
    for (jsize i = 0; i < ready; i++) c_string_free(&strings[i]);
    free(strings);
    free((void *)pointers);
}

JNIEXPORT jlongArray JNICALL Java_org_smartstack_SmartStack_record(JNIEnv *env, jclass type, jlong handle, jbyteArray jsonl) {
    (void)type;
    uint64_t inserted = 0, duplicates = 0;
    smartstack_status status;
    if (!jsonl) {
        status = smartstack_record(ENGINE(handle), NULL, 0, NULL, NULL);
    } else {
        /* The batch may be megabytes: read it in place rather than copying it. */
        jsize length = (*env)->GetArrayLength(env, jsonl);
        jbyte *bytes = (*env)->GetPrimitiveArrayCritical(env, jsonl, NULL);
        if (!bytes) return NULL;
        status = smartstack_record(ENGINE(handle), (const char *)bytes, (size_t)length, &inserted, &duplicates);
        (*env)->ReleasePrimitiveArrayCritical(env, jsonl, bytes, JNI_ABORT);
    }
    if (!check(env, status, ENGINE(handle))) return NULL;
    jlongArray counts = (*env)->NewLongArray(env, 2);
    jlong values[2] = {(jlong)inserted, (jlong)duplicates};
    if (counts) (*env)->SetLongArrayRegion(env, counts, 0, 2, values);
    return counts;
}

/* decide, or with `rank` set, rank; each with reasons when `explain` is non-zero. */
static jbyteArray answer(JNIEnv *env, jlong handle, jbyteArray stack, jbyteArray user, jlong at, jint offset, int rank,
                         int explain) {
    c_string s, u;
    jbyteArray result = NULL;
    if (c_string_init(env, stack, &s)) {
        if (c_string_init(env, user, &u)) {
            char *json = NULL;
            size_t length = 0;
            smartstack_status status =
                rank ? smartstack_rank_explained(ENGINE(handle), s.text, u.text, at, offset, explain, &json, &length)
                     : smartstack_decide(ENGINE(handle), s.text, u.text, at, offset, explain, &json, &length);
            if (check(env, status, ENGINE(handle))) result = new_bytes(env, json, length);
            smartstack_free(json);
            c_string_free(&u);
        }
        c_string_free(&s);
    }
    return result;
}

JNIEXPORT jbyteArray JNICALL Java_org_smartstack_SmartStack_decide(JNIEnv *env, jclass type, jlong handle, jbyteArray stack,
                                                                    jbyteArray user, jlong at, jint offset, jboolean explain) {
    (void)type;
    return answer(env, handle, stack, user, at, offset, 0, explain ? 1 : 0);
}

JNIEXPORT jbyteArray JNICALL Java_org_smartstack_SmartStack_rank(JNIEnv *env, jclass type, jlong handle, jbyteArray stack,
                                                                  jbyteArray user, jlong at, jint offset, jboolean explain) {
    (void)type;
    return answer(env, handle, stack, user, at, offset, 1, explain ? 1 : 0);
}

static jlong erase(JNIEnv *env, jlong handle, jbyteArray name,
                   smartstack_status (*function)(smartstack_engine *, const char *, uint64_t *)) {
    c_string n;
    uint64_t deleted = 0;
    if (!c_string_init(env, name, &n)) return 0;
    check(env, function(ENGINE(handle), n.text, &deleted), ENGINE(handle));
    c_string_free(&n);
    return (jlong)deleted;
}

JNIEXPORT jlong JNICALL Java_org_smartstack_SmartStack_eraseUser(JNIEnv *env, jclass type, jlong handle, jbyteArray user) {
    (void)type;
    return erase(env, handle, user, smartstack_erase_user);
}

JNIEXPORT jlong JNICALL Java_org_smartstack_SmartStack_eraseApp(JNIEnv *env, jclass type, jlong handle, jbyteArray app) {
    (void)type;
    return erase(env, handle, app, smartstack_erase_app);
}
