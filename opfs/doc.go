// Package opfs is the browser model cache in the Origin Private File System and the chunked reader that streams weights to the GPU.
package opfs
