//go:build !js

package webgpu

// A few wgpu-native entry points that cogentcore/webgpu v0.23.0 does not
// expose: error scopes around Submit and buffer creation (wgpu-native aborts
// the process on an uncaptured error, and cogentcore installs no handler),
// wgpuDeviceDestroy (to surface and test device loss), and compute passes with
// timestampWrites (per-dispatch timing). The symbols come from the static
// libwgpu_native.a that cogentcore links; the per-package cgo check link cannot
// see it, hence the unresolved-symbols flag (resolved in the final link).

/*
#cgo LDFLAGS: -Wl,--unresolved-symbols=ignore-in-object-files
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef struct WGPUDeviceImpl* WGPUDevice;
typedef struct WGPUQuerySetImpl* WGPUQuerySet;
typedef struct WGPUCommandEncoderImpl* WGPUCommandEncoder;
typedef struct WGPUComputePassEncoderImpl* WGPUComputePassEncoder;
typedef void (*WGPUErrorCallback)(uint32_t type, char const * message, void * userdata);

void wgpuDevicePushErrorScope(WGPUDevice device, uint32_t filter);
void wgpuDevicePopErrorScope(WGPUDevice device, WGPUErrorCallback callback, void * userdata);
void wgpuDeviceDestroy(WGPUDevice device);
void wgpuDeviceReference(WGPUDevice device);

typedef struct { const void* next; uint32_t sType; } wg_chained;
typedef struct {
	WGPUQuerySet querySet;
	uint32_t beginningOfPassWriteIndex;
	uint32_t endOfPassWriteIndex;
} wg_ts_writes;
typedef struct {
	const wg_chained* nextInChain;
	const char* label;
	const wg_ts_writes* timestampWrites;
} wg_pass_desc;
WGPUComputePassEncoder wgpuCommandEncoderBeginComputePass(WGPUCommandEncoder enc, const wg_pass_desc* desc);

typedef struct WGPUInstanceImpl* WGPUInstance;
typedef struct wg_chain { const struct wg_chain* next; uint32_t sType; } wg_chain;
typedef struct {
	wg_chain chain;
	uint32_t backends;
	uint32_t flags;
	uint32_t dx12ShaderCompiler;
	uint32_t gles3MinorVersion;
	const char* dxilPath;
	const char* dxcPath;
} wg_instance_extras;
typedef struct { const wg_chain* nextInChain; } wg_instance_desc;
WGPUInstance wgpuCreateInstance(const wg_instance_desc* desc);

// wg_create_instance creates an instance limited to the given backends, with
// every other extras field zeroed (cogentcore leaves them uninitialized).
static WGPUInstance wg_create_instance(uint32_t backends) {
	wg_instance_extras ex;
	memset(&ex, 0, sizeof ex);
	ex.chain.sType = 0x00030006; // WGPUSType_InstanceExtras
	ex.backends = backends;
	wg_instance_desc desc = { &ex.chain };
	return wgpuCreateInstance(&desc);
}

typedef struct { uint32_t type; char msg[2048]; } wg_err;

static void wg_err_cb(uint32_t type, char const * message, void * ud) {
	wg_err* e = (wg_err*)ud;
	if (type != 0 && e->type == 0) {
		e->type = type;
		snprintf(e->msg, sizeof e->msg, "%s", message ? message : "");
	}
}

// Filters: 0 validation, 1 out-of-memory. (2, internal, makes wgpu-native v22
// abort with "invalid error filter".)
static void wg_push(WGPUDevice d) {
	wgpuDevicePushErrorScope(d, 1);
	wgpuDevicePushErrorScope(d, 0);
}

static void wg_pop(WGPUDevice d, wg_err* e) {
	wgpuDevicePopErrorScope(d, wg_err_cb, e);
	wgpuDevicePopErrorScope(d, wg_err_cb, e);
}

static WGPUComputePassEncoder wg_begin_pass_ts(WGPUCommandEncoder enc, WGPUQuerySet qs, uint32_t b, uint32_t e) {
	wg_ts_writes ts = { qs, b, e };
	wg_pass_desc desc = { 0, 0, &ts };
	return wgpuCommandEncoderBeginComputePass(enc, &desc);
}
*/
import "C"

import (
	"unsafe"

	"github.com/cogentcore/webgpu/wgpu"
)

// The cogentcore wrappers are structs whose fields are the C handles
// ({ref} or {deviceRef, ref}); reading them through unsafe depends on the
// pinned version v0.23.0 (go.mod) and is checked by the tests that use them.

func cDevice(d *wgpu.Device) C.WGPUDevice {
	return *(*C.WGPUDevice)(unsafe.Pointer(d))
}

func cQuerySet(q *wgpu.QuerySet) C.WGPUQuerySet {
	return *(*C.WGPUQuerySet)(unsafe.Pointer(q))
}

func cEncoder(e *wgpu.CommandEncoder) C.WGPUCommandEncoder {
	return (*[2]C.WGPUCommandEncoder)(unsafe.Pointer(e))[1]
}

// errorScope runs f inside validation and out-of-memory error scopes
// and returns the first error f returned or the scopes caught.
func errorScope(d *wgpu.Device, f func() error) (kind string, msg string, err error) {
	dev := cDevice(d)
	C.wg_push(dev)
	err = f()
	var e C.wg_err
	C.wg_pop(dev, &e)
	switch e._type {
	case 0:
		return "", "", err
	case 1:
		kind = "validation"
	case 2:
		kind = "out-of-memory"
	case 3:
		kind = "internal"
	case 5:
		kind = "device-lost"
	default:
		kind = "unknown"
	}
	return kind, C.GoString(&e.msg[0]), err
}

// createInstance returns an instance limited to Vulkan, Metal and DX12
// (WGPUInstanceBackend_Primary without BrowserWebGPU), so GL is never picked.
func createInstance() *wgpu.Instance {
	ref := C.wg_create_instance(1<<0 | 1<<2 | 1<<3)
	if ref == nil {
		return nil
	}
	inst := new(wgpu.Instance)
	*(*C.WGPUInstance)(unsafe.Pointer(inst)) = ref
	return inst
}

func destroyDevice(d *wgpu.Device) { C.wgpuDeviceDestroy(cDevice(d)) }

// beginTimedPass begins a compute pass that writes timestamps at its start and
// end into qs at indices b and e.
func beginTimedPass(d *wgpu.Device, enc *wgpu.CommandEncoder, qs *wgpu.QuerySet, b, e uint32) *wgpu.ComputePassEncoder {
	ref := C.wg_begin_pass_ts(cEncoder(enc), cQuerySet(qs), C.uint32_t(b), C.uint32_t(e))
	// cogentcore's ComputePassEncoder.Release drops a device reference that
	// its BeginComputePass took: take it here too.
	C.wgpuDeviceReference(cDevice(d))
	p := new(wgpu.ComputePassEncoder)
	h := (*[2]unsafe.Pointer)(unsafe.Pointer(p))
	h[0] = unsafe.Pointer(cDevice(d))
	h[1] = unsafe.Pointer(ref)
	return p
}
