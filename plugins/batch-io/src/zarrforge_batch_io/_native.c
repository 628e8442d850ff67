/* zarrforge_batch_io._native: batches of whole-file reads and atomic file writes,
 * named relative to one open directory, made without holding Python's GIL.
 *
 * Contract (the Python side, zarrforge_batch_io, documents it for callers):
 *
 * read_files(directory_fd, names, follow) -> list
 *     For each name (a str), the whole content of the file of that name in the open
 *     directory `directory_fd`, as bytes; None where there is no such file (ENOENT,
 *     ENOTDIR, or a directory); an int (an errno value) where anything else failed, for
 *     the caller to report. With `follow` false a name that is a symbolic link fails
 *     with ELOOP (O_NOFOLLOW). A file of up to FIRST_READ bytes is read whole by one
 *     pread (a short read of a regular file is its end); a larger one is kept open and,
 *     once the GIL is back, read at the size fstat gave straight into its bytes object
 *     (the GIL released again for the read), so it is opened once and copied once.
 *
 * write_files(directory_fd, names, temporary_names, values) -> int
 *     For each item in order: create the file temporary_names[i] (it must not exist),
 *     write values[i] (a C-contiguous buffer) into it, close it, and rename it over
 *     names[i]. Stops at the first item that fails (removing that item's temporary
 *     file) or whose value is not a contiguous buffer, and returns how many were
 *     written, so the caller makes the rest its own way and reports any error.
 *
 * Arguments of the wrong type raise TypeError; a name holding NUL is answered as a
 * failure (EINVAL) for read_files and stops write_files. Nothing here raises for an
 * I/O failure. Memory that cannot be had raises MemoryError.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef O_CLOEXEC
#define O_CLOEXEC 0
#endif

#define FIRST_READ (64 * 1024) /* the largest file read in the first pass */

enum { GOT_DATA, GOT_NOTHING, GOT_ERROR, GOT_LARGE };

typedef struct {
    char *data; /* PyMem_RawMalloc'd, GOT_DATA only */
    Py_ssize_t size; /* GOT_DATA: of data; GOT_LARGE: what fstat said */
    int state;
    int error; /* GOT_ERROR only */
    int fd; /* GOT_LARGE only: still open */
} ReadResult;

/* The names of a list as file-system-encoded bytes objects (new references), as the
 * os module encodes them; NULL with an exception set on failure. */
static PyObject **encoded_names(PyObject *names, Py_ssize_t count) {
    PyObject **encoded = PyMem_Calloc(count ? count : 1, sizeof(PyObject *));
    if (encoded == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *name = PyList_GET_ITEM(names, i);
        if (!PyUnicode_Check(name)) {
            PyErr_Format(PyExc_TypeError, "names must be str, got %.100s", Py_TYPE(name)->tp_name);
        } else {
            encoded[i] = PyUnicode_EncodeFSDefault(name);
        }
        if (encoded[i] == NULL) {
            for (Py_ssize_t j = 0; j < i; j++) Py_DECREF(encoded[j]);
            PyMem_Free(encoded);
            return NULL;
        }
    }
    return encoded;
}

static void release_names(PyObject **encoded, Py_ssize_t count) {
    if (encoded == NULL) return;
    for (Py_ssize_t i = 0; i < count; i++) Py_XDECREF(encoded[i]);
    PyMem_Free(encoded);
}

/* A C string for an encoded name, or NULL where it holds a NUL byte. */
static const char *c_name(PyObject *encoded) {
    const char *text = PyBytes_AS_STRING(encoded);
    return (Py_ssize_t)strlen(text) == PyBytes_GET_SIZE(encoded) ? text : NULL;
}

/* The first pass over one file (no GIL held): read whole if it has at most FIRST_READ
 * bytes, else left open (GOT_LARGE) for read_large. `scratch` holds FIRST_READ + 1 bytes. */
static void read_one(int directory_fd, const char *name, int flags, char *scratch, ReadResult *result) {
    int fd;
    if (name == NULL) {
        result->state = GOT_ERROR;
        result->error = EINVAL;
        return;
    }
    do {
        fd = openat(directory_fd, name, flags);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0) {
        if (errno == ENOENT || errno == ENOTDIR) {
            result->state = GOT_NOTHING;
        } else {
            result->state = GOT_ERROR;
            result->error = errno;
        }
        return;
    }
    /* One byte more than FIRST_READ tells a small file (the whole of it) from a large one;
     * a short read of a regular file is its end, as the store's Python path takes it. */
    ssize_t first;
    do {
        first = pread(fd, scratch, FIRST_READ + 1, 0);
    } while (first < 0 && errno == EINTR);
    char *data = NULL;
    int error = 0;
    if (first < 0) {
        error = errno;
    } else if (first <= FIRST_READ) {
        data = PyMem_RawMalloc(first ? (size_t)first : 1);
        if (data == NULL) error = ENOMEM;
        else memcpy(data, scratch, (size_t)first);
    } else {
        struct stat status;
        if (fstat(fd, &status) == 0) {
            result->state = GOT_LARGE; /* read by read_large, with the GIL held to make its bytes */
            result->fd = fd;
            result->size = (Py_ssize_t)status.st_size;
            return;
        }
        error = errno;
    }
    close(fd);
    if (error == 0) {
        result->state = GOT_DATA;
        result->data = data;
        result->size = first;
        return;
    }
    if (error == EISDIR) {
        result->state = GOT_NOTHING; /* a directory where a value was asked for */
    } else {
        result->state = GOT_ERROR;
        result->error = error;
    }
}

static ssize_t pread_fully(int fd, char *into, size_t length) {
    size_t got = 0;
    while (got < length) {
        ssize_t part = pread(fd, into + got, length - got, (off_t)got);
        if (part < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        if (part == 0) break; /* the file ended early: shorter than fstat said */
        got += (size_t)part;
    }
    return (ssize_t)got;
}

/* A large file left open by the first pass, read at its size into a new bytes object
 * (the GIL released for the read) and closed: the bytes, an int errno, or NULL with an
 * exception set (the descriptor closed in every case). */
static PyObject *read_large(ReadResult *result) {
    int fd = result->fd;
    result->fd = -1;
    PyObject *bytes = PyBytes_FromStringAndSize(NULL, result->size);
    if (bytes == NULL) {
        close(fd);
        return NULL;
    }
    ssize_t got;
    int error = 0;
    Py_BEGIN_ALLOW_THREADS
    got = pread_fully(fd, PyBytes_AS_STRING(bytes), (size_t)result->size);
    if (got < 0) error = errno;
    close(fd);
    Py_END_ALLOW_THREADS
    if (error != 0) {
        Py_DECREF(bytes);
        return PyLong_FromLong(error);
    }
    if (got < result->size) { /* shortened meanwhile: what it still held */
        PyObject *shorter = PyBytes_FromStringAndSize(PyBytes_AS_STRING(bytes), got);
        Py_DECREF(bytes);
        return shorter;
    }
    return bytes;
}

static PyObject *read_files(PyObject *module, PyObject *args) {
    int directory_fd, follow;
    PyObject *names;
    if (!PyArg_ParseTuple(args, "iO!p:read_files", &directory_fd, &PyList_Type, &names, &follow)) return NULL;
    Py_ssize_t count = PyList_GET_SIZE(names);
    PyObject **encoded = encoded_names(names, count);
    if (encoded == NULL) return NULL;
    ReadResult *results = PyMem_Calloc(count ? count : 1, sizeof(ReadResult));
    char *scratch = PyMem_Malloc(FIRST_READ + 1);
    const char **texts = PyMem_Calloc(count ? count : 1, sizeof(char *));
    if (results == NULL || scratch == NULL || texts == NULL) {
        PyMem_Free(results);
        PyMem_Free(scratch);
        PyMem_Free(texts);
        release_names(encoded, count);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < count; i++) texts[i] = c_name(encoded[i]);
    int flags = O_RDONLY | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW);
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < count; i++) read_one(directory_fd, texts[i], flags, scratch, &results[i]);
    Py_END_ALLOW_THREADS
    PyMem_Free(scratch);
    PyMem_Free(texts);
    release_names(encoded, count);
    PyObject *answers = PyList_New(count);
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *answer = NULL;
        if (answers != NULL) {
            if (results[i].state == GOT_DATA) answer = PyBytes_FromStringAndSize(results[i].data, results[i].size);
            else if (results[i].state == GOT_NOTHING) answer = Py_NewRef(Py_None);
            else if (results[i].state == GOT_LARGE) answer = read_large(&results[i]);
            else answer = PyLong_FromLong(results[i].error);
            if (answer == NULL) Py_CLEAR(answers);
            else PyList_SET_ITEM(answers, i, answer);
        }
        if (results[i].state == GOT_LARGE && results[i].fd >= 0) close(results[i].fd); /* after a failure */
        PyMem_RawFree(results[i].data);
    }
    PyMem_Free(results);
    return answers;
}

/* Write one value to a new temporary file and rename it over `name` (no GIL held):
 * 0, or an errno value (the temporary file removed). */
static int write_one(int directory_fd, const char *name, const char *temporary, const Py_buffer *value) {
    int fd;
    do {
        fd = openat(directory_fd, temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0) return errno;
    const char *at = value->buf;
    size_t left = (size_t)value->len;
    int error = 0;
    while (left > 0) {
        ssize_t written = write(fd, at, left);
        if (written < 0) {
            if (errno == EINTR) continue;
            error = errno;
            break;
        }
        at += written;
        left -= (size_t)written;
    }
    /* On Linux the descriptor is released even when close fails with EINTR. */
    if (close(fd) < 0 && error == 0 && errno != EINTR) error = errno;
    if (error == 0 && renameat(directory_fd, temporary, directory_fd, name) < 0) error = errno;
    if (error != 0) unlinkat(directory_fd, temporary, 0);
    return error;
}

static PyObject *write_files(PyObject *module, PyObject *args) {
    int directory_fd;
    PyObject *names, *temporaries, *values;
    if (!PyArg_ParseTuple(args, "iO!O!O!:write_files", &directory_fd, &PyList_Type, &names, &PyList_Type,
                          &temporaries, &PyList_Type, &values))
        return NULL;
    Py_ssize_t count = PyList_GET_SIZE(names);
    if (PyList_GET_SIZE(temporaries) != count || PyList_GET_SIZE(values) != count) {
        PyErr_SetString(PyExc_ValueError, "names, temporary_names and values must be as long");
        return NULL;
    }
    PyObject **encoded = encoded_names(names, count);
    if (encoded == NULL) return NULL;
    PyObject **encoded_temporaries = encoded_names(temporaries, count);
    if (encoded_temporaries == NULL) {
        release_names(encoded, count);
        return NULL;
    }
    Py_buffer *views = PyMem_Calloc(count ? count : 1, sizeof(Py_buffer));
    const char **texts = PyMem_Calloc(2 * (count ? count : 1), sizeof(char *));
    if (views == NULL || texts == NULL) {
        PyMem_Free(views);
        PyMem_Free(texts);
        release_names(encoded, count);
        release_names(encoded_temporaries, count);
        return PyErr_NoMemory();
    }
    /* The items before the first that cannot be written this way: a name holding NUL,
     * or a value that is not one contiguous buffer. */
    Py_ssize_t usable = 0;
    for (; usable < count; usable++) {
        texts[2 * usable] = c_name(encoded[usable]);
        texts[2 * usable + 1] = c_name(encoded_temporaries[usable]);
        if (texts[2 * usable] == NULL || texts[2 * usable + 1] == NULL) break;
        if (PyObject_GetBuffer(PyList_GET_ITEM(values, usable), &views[usable], PyBUF_SIMPLE) < 0) {
            PyErr_Clear();
            break;
        }
    }
    Py_ssize_t done = 0;
    Py_BEGIN_ALLOW_THREADS
    while (done < usable && write_one(directory_fd, texts[2 * done], texts[2 * done + 1], &views[done]) == 0) {
        done++;
    }
    Py_END_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < usable; i++) PyBuffer_Release(&views[i]);
    PyMem_Free(views);
    PyMem_Free(texts);
    release_names(encoded, count);
    release_names(encoded_temporaries, count);
    return PyLong_FromSsize_t(done);
}

static PyMethodDef methods[] = {
    {"read_files", read_files, METH_VARARGS,
     "read_files(directory_fd, names, follow): whole files relative to an open directory, without the GIL"},
    {"write_files", write_files, METH_VARARGS,
     "write_files(directory_fd, names, temporary_names, values): files written and renamed into place "
     "relative to an open directory, without the GIL; how many were written"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef native_module = {
    PyModuleDef_HEAD_INIT, "zarrforge_batch_io._native",
    "Batches of local file reads and writes made without Python's GIL (see zarrforge_batch_io).", -1, methods,
};

PyMODINIT_FUNC PyInit__native(void) { return PyModule_Create(&native_module); }
