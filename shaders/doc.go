// Package shaders holds the WGSL kernel templates and the specializer that turns a kernel key into WGSL source.
package shaders
