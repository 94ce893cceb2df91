package gpu_test

import (
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// validationLayer is where Debian's vulkan-validationlayers (installed by
// make deps) puts the Khronos validation layer's manifest.
const validationLayer = "/usr/share/vulkan/explicit_layer.d/VkLayer_khronos_validation.json"

// TestVulkanValidationClean runs two engine tests again in a child process
// under the Khronos validation layer, with an empty shader cache (as on a
// fresh CI machine: lavapipe then JIT-compiles inside the steps, which
// become long), and fails on any validation error. It guards against
// wgpu-native freeing work still in flight: its blocking Poll gives up
// after 5 s and then reset the command pool and destroyed buffers of a
// running submission (VUID-vkResetCommandPool-commandPool-00040,
// VUID-vkDestroyBuffer-buffer-00922 here), which crashed lavapipe.
func TestVulkanValidationClean(t *testing.T) {
	if os.Getenv("WEBGGUF_VALIDATION_CHILD") != "" {
		t.Skip("the child process runs the engine tests only")
	}
	if testing.Short() {
		t.Skip("a minute or more under the validation layer; skipped with -short")
	}
	if _, err := os.Stat(validationLayer); err != nil {
		t.Fatalf("the Vulkan validation layer is missing (%v): apt-get install vulkan-validationlayers (make deps does)", err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run", "^(TestLMHeadRowVariants|TestF16CacheMatchesF16Reference)$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(),
		"WEBGGUF_VALIDATION_CHILD=1",
		"VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation",
		"MESA_SHADER_CACHE_DIR="+t.TempDir(),
	)
	out, err := cmd.CombinedOutput()
	text := string(out)
	if !strings.Contains(text, "--- PASS: TestLMHeadRowVariants") || !strings.Contains(text, "--- PASS: TestF16CacheMatchesF16Reference") {
		t.Fatalf("the engine tests did not both pass under the validation layer (%v):\n%s", err, tail(text, 3000))
	}
	if vuids := regexp.MustCompile(`VUID-[A-Za-z0-9_-]+|Validation Error`).FindAllString(text, -1); len(vuids) > 0 {
		count := map[string]int{}
		for _, v := range vuids {
			count[v]++
		}
		var lines []string
		for v, n := range count {
			lines = append(lines, v+" ×"+strconv.Itoa(n))
		}
		sort.Strings(lines)
		t.Fatalf("the validation layer reported:\n%s\n\n%s", strings.Join(lines, "\n"), tail(text, 3000))
	}
	if err != nil {
		t.Fatalf("child: %v\n%s", err, tail(text, 3000))
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}
