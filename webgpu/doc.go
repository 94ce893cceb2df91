// Package webgpu is the GPU runtime: device, statically planned buffers, the recorded command tape, with a native (wgpu-native) and a browser backend.
package webgpu
