package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/webgguf/webgguf/webgpu"
)

func init() {
	commands["gpuinfo"] = command{summary: "print the WebGPU adapter, features and limits (native, wgpu-native)", run: func(args []string) error { return gpuInfo(args, os.Stdout) }}
}

func gpuInfo(args []string, w io.Writer) error {
	fs := flag.NewFlagSet("gpuinfo", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print JSON")
	power := fs.String("power", "high", "power preference: default, low, high")
	if err := fs.Parse(args); err != nil {
		return err
	}
	opt := webgpu.Options{}
	switch *power {
	case "default":
	case "low":
		opt.PowerPreference = webgpu.PowerLow
	case "high":
		opt.PowerPreference = webgpu.PowerHigh
	default:
		return fmt.Errorf("--power %q: want default, low or high", *power)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d, err := webgpu.Open(ctx, opt)
	if err != nil {
		return err
	}
	defer d.Close()
	info := d.Info()
	if *asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(info)
	}
	feats := make([]string, len(info.Features))
	for i, f := range info.Features {
		feats[i] = string(f)
	}
	l := info.Limits
	fmt.Fprintf(w, "adapter       %s\n", info.Adapter)
	fmt.Fprintf(w, "vendor        %s (%s)\n", info.Vendor, info.Architecture)
	fmt.Fprintf(w, "driver        %s\n", info.Driver)
	fmt.Fprintf(w, "backend       %s, type %s, fallback %v\n", info.Backend, info.AdapterType, info.Fallback)
	fmt.Fprintf(w, "features      %s\n", strings.Join(feats, " "))
	fmt.Fprintf(w, "limits\n")
	for _, kv := range []struct {
		k string
		v uint64
	}{
		{"maxBufferSize", l.MaxBufferSize},
		{"maxStorageBufferBindingSize", l.MaxStorageBufferBindingSize},
		{"maxUniformBufferBindingSize", l.MaxUniformBufferBindingSize},
		{"minStorageBufferOffsetAlignment", uint64(l.MinStorageBufferOffsetAlignment)},
		{"minUniformBufferOffsetAlignment", uint64(l.MinUniformBufferOffsetAlignment)},
		{"maxStorageBuffersPerShaderStage", uint64(l.MaxStorageBuffersPerShaderStage)},
		{"maxBindingsPerBindGroup", uint64(l.MaxBindingsPerBindGroup)},
		{"maxComputeWorkgroupStorageSize", uint64(l.MaxComputeWorkgroupStorageSize)},
		{"maxComputeInvocationsPerWorkgroup", uint64(l.MaxComputeInvocationsPerWorkgroup)},
		{"maxComputeWorkgroupSizeX", uint64(l.MaxComputeWorkgroupSizeX)},
		{"maxComputeWorkgroupSizeY", uint64(l.MaxComputeWorkgroupSizeY)},
		{"maxComputeWorkgroupSizeZ", uint64(l.MaxComputeWorkgroupSizeZ)},
		{"maxComputeWorkgroupsPerDimension", uint64(l.MaxComputeWorkgroupsPerDimension)},
	} {
		fmt.Fprintf(w, "  %-36s %d\n", kv.k, kv.v)
	}
	return nil
}
