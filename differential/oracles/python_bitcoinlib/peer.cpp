// python-bitcoinlib behind serdiff's peer C ABI, through an embedded CPython interpreter started on first use.
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>

#include "differential/oracles/peer_abi.h"

#if defined(__SANITIZE_ADDRESS__)
#define SERDIFF_LEAK_CHECKED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(leak_sanitizer)
#define SERDIFF_LEAK_CHECKED 1
#endif
#endif
#ifdef SERDIFF_LEAK_CHECKED
#include <sanitizer/lsan_interface.h>
#endif

namespace {

// CPython keeps interned objects and caches alive until exit by design; what the interpreter
// allocates is not serdiff's to free, so LeakSanitizer ignores allocations made inside it.
struct InsideInterpreter {
#ifdef SERDIFF_LEAK_CHECKED
    InsideInterpreter() { __lsan_disable(); }
    ~InsideInterpreter() { __lsan_enable(); }
#endif
};

// Directories put in front of sys.path: where CMake installed the pinned package, and this directory
// (serdiff_python_peer.py); SERDIFF_PYTHON_PEER_PATH overrides the first at run time.
constexpr const char* kPackageDir = SERDIFF_PYTHON_PEER_PACKAGE_DIR;
constexpr const char* kModuleDir = SERDIFF_PYTHON_PEER_MODULE_DIR;

struct Interpreter {
    PyObject* decode_tx = nullptr;
    PyObject* decode_block = nullptr;
    std::string failure;  // why the module could not be loaded
};

void copy_error(serdiff_peer_result* out, const std::string& message)
{
    const size_t length = std::min(message.size(), sizeof out->error - 1);
    std::memcpy(out->error, message.data(), length);
    out->error[length] = '\0';
}

// The pending Python exception as text, cleared.
std::string take_exception()
{
    PyObject* type = nullptr;
    PyObject* value = nullptr;
    PyObject* traceback = nullptr;
    PyErr_Fetch(&type, &value, &traceback);
    std::string text = "python error";
    if (value != nullptr) {
        if (PyObject* str = PyObject_Str(value)) {
            if (const char* utf8 = PyUnicode_AsUTF8(str)) text = utf8;
            Py_DECREF(str);
        }
    }
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(traceback);
    PyErr_Clear();
    return text;
}

Interpreter start()
{
    [[maybe_unused]] InsideInterpreter leak_scope;
    Interpreter interpreter;
    const bool started_here = !Py_IsInitialized();
    if (started_here) {
        PyConfig config;
        // Isolated: the caller's PYTHONPATH/PYTHONHOME or user site-packages cannot change the peer.
        PyConfig_InitIsolatedConfig(&config);
        // Signals belong to the host (libFuzzer, the CLI), not to Python.
        config.install_signal_handlers = 0;
        // No __pycache__ beside serdiff_python_peer.py in the source tree.
        config.write_bytecode = 0;
        PyStatus status = Py_InitializeFromConfig(&config);
        PyConfig_Clear(&config);
        if (PyStatus_Exception(status)) {
            interpreter.failure = std::string("cannot start python: ") + (status.err_msg ? status.err_msg : "?");
            return interpreter;
        }
    }
    PyGILState_STATE gil = PyGILState_Ensure();
    const char* package_dir = std::getenv("SERDIFF_PYTHON_PEER_PATH");
    if (package_dir == nullptr || *package_dir == '\0') package_dir = kPackageDir;
    PyObject* sys_path = PySys_GetObject("path");  // borrowed
    for (const char* dir : {kModuleDir, package_dir}) {
        PyObject* entry = PyUnicode_FromString(dir);
        if (sys_path == nullptr || entry == nullptr || PyList_Insert(sys_path, 0, entry) != 0)
            interpreter.failure = "cannot extend sys.path";
        Py_XDECREF(entry);
    }
    PyObject* module = interpreter.failure.empty() ? PyImport_ImportModule("serdiff_python_peer") : nullptr;
    if (module != nullptr) {
        interpreter.decode_tx = PyObject_GetAttrString(module, "decode_tx");
        interpreter.decode_block = PyObject_GetAttrString(module, "decode_block");
        Py_DECREF(module);
    }
    if (interpreter.decode_tx == nullptr || interpreter.decode_block == nullptr) {
        if (interpreter.failure.empty())
            interpreter.failure = "cannot import serdiff_python_peer (python-bitcoinlib in " +
                                  std::string(package_dir) + "): " + take_exception();
    }
    PyGILState_Release(gil);
    // Hand the GIL back so any thread may call the peer through PyGILState_Ensure.
    if (started_here) PyEval_SaveThread();
    return interpreter;
}

Interpreter& interpreter()
{
    static Interpreter instance = start();
    return instance;
}

// Calls (under the GIL, so from any thread) decode_tx(bytes, allow_witness) or decode_block(bytes) and unpacks (accepted, consumed, reencoded, error).
int call(bool block, const uint8_t* data, size_t size, int allow_witness, serdiff_peer_result* out)
{
    std::memset(out, 0, sizeof *out);
    Interpreter& python = interpreter();
    if (!python.failure.empty()) {
        copy_error(out, python.failure);
        return SERDIFF_PEER_INTERNAL_ERROR;
    }
    [[maybe_unused]] InsideInterpreter leak_scope;
    PyGILState_STATE gil = PyGILState_Ensure();
    int status = SERDIFF_PEER_INTERNAL_ERROR;
    PyObject* input = PyBytes_FromStringAndSize(reinterpret_cast<const char*>(data), static_cast<Py_ssize_t>(size));
    PyObject* result = nullptr;
    if (input != nullptr)
        result = block ? PyObject_CallFunctionObjArgs(python.decode_block, input, nullptr)
                       : PyObject_CallFunction(python.decode_tx, "Oi", input, allow_witness);
    const char* reencoded = nullptr;
    Py_ssize_t reencoded_len = 0;
    int accepted = 0;
    Py_ssize_t consumed = 0;
    const char* error = nullptr;
    if (result == nullptr) {
        copy_error(out, take_exception());
    } else if (result == Py_None) {
        copy_error(out, "python-bitcoinlib has no witness-free transaction decoding");
        status = SERDIFF_PEER_UNSUPPORTED;
    } else if (!PyArg_ParseTuple(result, "pny#s", &accepted, &consumed, &reencoded, &reencoded_len, &error)) {
        copy_error(out, "serdiff_python_peer returned a malformed tuple: " + take_exception());
    } else {
        out->accepted = accepted;
        copy_error(out, error);
        status = SERDIFF_PEER_OK;
        if (accepted) {
            out->consumed = static_cast<size_t>(consumed);
            out->reencoded = static_cast<uint8_t*>(std::malloc(static_cast<size_t>(reencoded_len) + 1));
            if (out->reencoded == nullptr) {
                copy_error(out, "out of memory copying the re-encoding");
                status = SERDIFF_PEER_INTERNAL_ERROR;
            } else {
                std::memcpy(out->reencoded, reencoded, static_cast<size_t>(reencoded_len));
                out->reencoded_len = static_cast<size_t>(reencoded_len);
            }
        }
    }
    Py_XDECREF(result);
    Py_XDECREF(input);
    PyGILState_Release(gil);
    return status;
}

}  // namespace

extern "C" int serdiff_peer_python_bitcoinlib_decode_tx(const uint8_t* data, size_t size, int allow_witness,
                                                        serdiff_peer_result* out)
{
    return call(false, data, size, allow_witness, out);
}

extern "C" int serdiff_peer_python_bitcoinlib_decode_block(const uint8_t* data, size_t size, serdiff_peer_result* out)
{
    return call(true, data, size, 0, out);
}
