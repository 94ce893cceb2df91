//go:build !js

package webgpu

// Direct calls into wgpu-native for what cogentcore/webgpu v0.23.0 does not
// wrap soundly:
//   - instance and device creation: cogentcore mallocs the instance extras
//     and the native limits without zeroing them (garbage gles3 version
//     aborts; garbage maxNonSamplerBindings makes requestDevice fail at
//     random, most of the time on NVIDIA), and its device-lost callback
//     passes a Go pointer to C (cgocheck panics);
//   - an uncaptured-error callback (without one, wgpu-native aborts the
//     process on any error outside an error scope);
//   - error scopes around submit and buffer creation (out-of-memory too);
//   - wgpuDeviceDestroy, to surface and test device loss;
//   - compute passes with timestampWrites (per-dispatch timing);
//   - buffer maps, whose callback userdata must outlive the call
//     (cmap_native.go).
// The symbols come from the static libwgpu_native.a that cogentcore links;
// the per-package cgo check link cannot see it, hence the unresolved-symbols
// flag (they are resolved in the final link). The headers in cinclude/ are
// that library's own.

/*
#cgo CFLAGS: -I${SRCDIR}/cinclude
#cgo LDFLAGS: -Wl,--unresolved-symbols=ignore-in-object-files
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "wgpu.h"

// wg_state lives in C memory for the device's lifetime; wgpu-native's
// callbacks write into it and Go polls it.
typedef struct {
	int lost;
	uint32_t lost_reason;
	char lost_msg[1024];
	uint32_t uncaptured;
	char uncaptured_msg[2048];
	WGPUDevice device;
	WGPURequestDeviceStatus status;
	char request_msg[1024];
} wg_state;

static void wg_lost_cb(WGPUDeviceLostReason reason, char const * message, void * ud) {
	wg_state* s = (wg_state*)ud;
	if (!s->lost) {
		s->lost_reason = (uint32_t)reason;
		snprintf(s->lost_msg, sizeof s->lost_msg, "%s", message ? message : "");
		s->lost = 1;
	}
}

static void wg_uncaptured_cb(WGPUErrorType type, char const * message, void * ud) {
	wg_state* s = (wg_state*)ud;
	if (!s->uncaptured) {
		s->uncaptured = (uint32_t)type;
		snprintf(s->uncaptured_msg, sizeof s->uncaptured_msg, "%s", message ? message : "");
	}
}

static void wg_request_cb(WGPURequestDeviceStatus status, WGPUDevice device, char const * message, void * ud) {
	wg_state* s = (wg_state*)ud;
	s->status = status;
	s->device = device;
	snprintf(s->request_msg, sizeof s->request_msg, "%s", message ? message : "");
}

static WGPUInstance wg_create_instance(uint32_t backends) {
	WGPUInstanceExtras ex;
	memset(&ex, 0, sizeof ex);
	ex.chain.sType = (WGPUSType)WGPUSType_InstanceExtras;
	ex.backends = backends;
	WGPUInstanceDescriptor desc;
	memset(&desc, 0, sizeof desc);
	desc.nextInChain = &ex.chain;
	return wgpuCreateInstance(&desc);
}

// wg_request_device asks for the adapter's own limits and the given
// features; s receives the device or the failure message.
static void wg_request_device(WGPUAdapter ad, const uint32_t* feats, size_t nfeats, wg_state* s) {
	WGPUSupportedLimits sup;
	memset(&sup, 0, sizeof sup);
	wgpuAdapterGetLimits(ad, &sup);
	WGPURequiredLimits req;
	memset(&req, 0, sizeof req);
	req.limits = sup.limits;
	// An adapter may report "no limit" as UINT64_MAX, which in a request
	// means "undefined", i.e. the 256 MiB default (seen on NVIDIA's Vulkan
	// driver). Ask for a large defined value instead.
	if (req.limits.maxBufferSize == WGPU_LIMIT_U64_UNDEFINED) req.limits.maxBufferSize = 1ULL << 62;
	if (req.limits.maxStorageBufferBindingSize == WGPU_LIMIT_U64_UNDEFINED) req.limits.maxStorageBufferBindingSize = 1ULL << 62;
	if (req.limits.maxUniformBufferBindingSize == WGPU_LIMIT_U64_UNDEFINED) req.limits.maxUniformBufferBindingSize = 1ULL << 62;
	WGPUDeviceDescriptor desc;
	memset(&desc, 0, sizeof desc);
	desc.label = "webgguf";
	desc.requiredFeatureCount = nfeats;
	desc.requiredFeatures = (const WGPUFeatureName*)feats;
	desc.requiredLimits = &req;
	desc.deviceLostCallback = wg_lost_cb;
	desc.deviceLostUserdata = s;
	desc.uncapturedErrorCallbackInfo.callback = wg_uncaptured_cb;
	desc.uncapturedErrorCallbackInfo.userdata = s;
	s->status = WGPURequestDeviceStatus_Unknown;
	wgpuAdapterRequestDevice(ad, &desc, wg_request_cb, s);
}

typedef struct { uint32_t type; char msg[2048]; } wg_err;

static void wg_err_cb(WGPUErrorType type, char const * message, void * ud) {
	wg_err* e = (wg_err*)ud;
	if (type != WGPUErrorType_NoError && e->type == 0) {
		e->type = (uint32_t)type;
		snprintf(e->msg, sizeof e->msg, "%s", message ? message : "");
	}
}

// Validation and out-of-memory scopes. (The internal filter makes
// wgpu-native v22 abort with "invalid error filter".)
static void wg_push(WGPUDevice d) {
	wgpuDevicePushErrorScope(d, WGPUErrorFilter_OutOfMemory);
	wgpuDevicePushErrorScope(d, WGPUErrorFilter_Validation);
}

static void wg_pop(WGPUDevice d, wg_err* e) {
	wgpuDevicePopErrorScope(d, wg_err_cb, e);
	wgpuDevicePopErrorScope(d, wg_err_cb, e);
}

// webgguf_map_done is Go (cmap_native.go); h is a cgo.Handle value that
// the callback deletes, so the userdata stays valid until it fires.
extern void webgguf_map_done(uint32_t status, uintptr_t h);

static void wg_map_cb(WGPUBufferMapAsyncStatus status, void * ud) {
	webgguf_map_done((uint32_t)status, (uintptr_t)ud);
}

static void wg_map_read(WGPUBuffer b, uint64_t size, uintptr_t h) {
	wgpuBufferMapAsync(b, WGPUMapMode_Read, 0, (size_t)size, wg_map_cb, (void*)h);
}

static WGPUComputePassEncoder wg_begin_pass_ts(WGPUCommandEncoder enc, WGPUQuerySet qs, uint32_t b, uint32_t e) {
	WGPUComputePassTimestampWrites ts;
	memset(&ts, 0, sizeof ts);
	ts.querySet = qs;
	ts.beginningOfPassWriteIndex = b;
	ts.endOfPassWriteIndex = e;
	WGPUComputePassDescriptor desc;
	memset(&desc, 0, sizeof desc);
	desc.timestampWrites = &ts;
	return wgpuCommandEncoderBeginComputePass(enc, &desc);
}
*/
import "C"

import (
	"fmt"
	"runtime/cgo"
	"unsafe"

	"github.com/cogentcore/webgpu/wgpu"
)

// The cogentcore wrappers are structs whose fields are the C handles
// ({ref} or {deviceRef, ref}); reading and writing them through unsafe
// depends on the pinned version v0.23.0 (go.mod) and is exercised by every
// native test.

func cDevice(d *wgpu.Device) C.WGPUDevice {
	return *(*C.WGPUDevice)(unsafe.Pointer(d))
}

func cAdapter(a *wgpu.Adapter) C.WGPUAdapter {
	return *(*C.WGPUAdapter)(unsafe.Pointer(a))
}

func cBuffer(b *wgpu.Buffer) C.WGPUBuffer {
	return (*[2]C.WGPUBuffer)(unsafe.Pointer(b))[1]
}

func cQuerySet(q *wgpu.QuerySet) C.WGPUQuerySet {
	return *(*C.WGPUQuerySet)(unsafe.Pointer(q))
}

func cEncoder(e *wgpu.CommandEncoder) C.WGPUCommandEncoder {
	return (*[2]C.WGPUCommandEncoder)(unsafe.Pointer(e))[1]
}

// createInstance returns an instance limited to Vulkan, Metal and DX12, so
// GL (EGL on llvmpipe), with smaller limits, is never picked.
func createInstance() *wgpu.Instance {
	ref := C.wg_create_instance(C.WGPUInstanceBackend_Vulkan | C.WGPUInstanceBackend_Metal | C.WGPUInstanceBackend_DX12)
	if ref == nil {
		return nil
	}
	inst := new(wgpu.Instance)
	*(*C.WGPUInstance)(unsafe.Pointer(inst)) = ref
	return inst
}

// devState is the C-side state of one device (callbacks write into it).
type devState struct{ s *C.wg_state }

// requestDevice requests a device with the adapter's limits and feats.
func requestDevice(ad *wgpu.Adapter, feats []wgpu.FeatureName) (*wgpu.Device, devState, error) {
	st := devState{(*C.wg_state)(C.calloc(1, C.size_t(unsafe.Sizeof(C.wg_state{}))))}
	var fp *C.uint32_t
	if len(feats) > 0 {
		fp = (*C.uint32_t)(C.calloc(C.size_t(len(feats)), 4))
		defer C.free(unsafe.Pointer(fp))
		copy(unsafe.Slice((*uint32)(unsafe.Pointer(fp)), len(feats)), unsafe.Slice((*uint32)(unsafe.Pointer(&feats[0])), len(feats)))
	}
	C.wg_request_device(cAdapter(ad), fp, C.size_t(len(feats)), st.s)
	if st.s.status != C.WGPURequestDeviceStatus_Success || st.s.device == nil {
		msg, status := C.GoString(&st.s.request_msg[0]), int(st.s.status)
		C.free(unsafe.Pointer(st.s))
		return nil, devState{}, fmt.Errorf("requestDevice: status %d: %s", status, msg)
	}
	dev := new(wgpu.Device)
	*(*C.WGPUDevice)(unsafe.Pointer(dev)) = st.s.device
	return dev, st, nil
}

// lost reports the device-lost callback's reason and message, if it ran.
func (st devState) lost() (bool, string, string) {
	if st.s == nil || st.s.lost == 0 {
		return false, "", ""
	}
	reason := "unknown"
	if st.s.lost_reason == C.WGPUDeviceLostReason_Destroyed {
		reason = "destroyed"
	}
	return true, reason, C.GoString(&st.s.lost_msg[0])
}

// takeUncaptured returns and clears the first error that happened outside
// every error scope.
func (st devState) takeUncaptured() string {
	if st.s == nil || st.s.uncaptured == 0 {
		return ""
	}
	msg := C.GoString(&st.s.uncaptured_msg[0])
	st.s.uncaptured = 0
	return msg
}

// errorScope runs f inside validation and out-of-memory error scopes and
// returns the first error f returned or the scopes caught.
func errorScope(d *wgpu.Device, f func() error) (kind string, msg string, err error) {
	dev := cDevice(d)
	C.wg_push(dev)
	err = f()
	var e C.wg_err
	C.wg_pop(dev, &e)
	switch e._type {
	case 0:
		return "", "", err
	case C.WGPUErrorType_Validation:
		kind = "validation"
	case C.WGPUErrorType_OutOfMemory:
		kind = "out-of-memory"
	case C.WGPUErrorType_Internal:
		kind = "internal"
	case C.WGPUErrorType_DeviceLost:
		kind = "device-lost"
	default:
		kind = "unknown"
	}
	return kind, C.GoString(&e.msg[0]), err
}

// mapRead starts mapping size bytes of b for reading; done runs exactly once,
// from inside a later poll, submit or unmap (or at once on a validation
// error), with the map's status. See cmap_native.go for why not
// cogentcore's Buffer.MapAsync.
func mapRead(b *wgpu.Buffer, size uint64, done func(wgpu.BufferMapAsyncStatus)) {
	C.wg_map_read(cBuffer(b), C.uint64_t(size), C.uintptr_t(cgo.NewHandle(done)))
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
