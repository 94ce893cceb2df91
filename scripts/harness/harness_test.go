package harness

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

// TestRunPageReportsFailure checks the harness itself: a page whose promise
// rejects is an error, and the result carries console lines of the page and
// of its worker, and a screenshot.
func TestRunPageReportsFailure(t *testing.T) {
	e := setup(t)
	res, err := e.browser.RunPage(context.Background(), e.srv.URL+"/scripts/harness/pages/selftest-fail.html", time.Minute)
	if err == nil || !strings.Contains(err.Error(), "deliberate failure marker") {
		t.Fatalf("want the page's rejection, got %v", err)
	}
	console := strings.Join(res.Console, "\n")
	for _, m := range []string{"page-console-marker", "worker-console-marker"} {
		if !strings.Contains(console, m) {
			t.Errorf("console lacks %s:\n%s", m, console)
		}
	}
	if st, err := os.Stat(res.Screenshot); err != nil || st.Size() < 1000 {
		t.Errorf("screenshot %q: %v", res.Screenshot, err)
	}
}

func TestFlagsKeepVulkanAndSwiftShader(t *testing.T) {
	f := Flags(Options{})
	if f["enable-features"] != "Vulkan" || f["use-webgpu-adapter"] != "swiftshader" || f["enable-unsafe-webgpu"] != true {
		t.Fatalf("flags %v", f)
	}
	if g := Flags(Options{GPU: true}); g["use-webgpu-adapter"] != nil || g["use-angle"] != "vulkan" {
		t.Fatalf("gpu flags %v", g)
	}
}

func TestEnvFlags(t *testing.T) {
	t.Setenv("HARNESS_CHROMIUM_FLAGS", "--enable-dawn-features=disable_robustness,skip_validation --in-process-gpu  --use-angle=gl")
	f := Flags(Options{GPU: true})
	if f["enable-dawn-features"] != "disable_robustness,skip_validation" || f["in-process-gpu"] != true || f["use-angle"] != "gl" {
		t.Fatalf("flags with HARNESS_CHROMIUM_FLAGS: %v", f)
	}
	if f["enable-unsafe-webgpu"] != true || f["headless"] != true {
		t.Fatalf("the base flags were lost: %v", f)
	}
}

func TestHarnessGPUEnv(t *testing.T) {
	t.Setenv("HARNESS_GPU", "")
	if withEnv(Options{}).GPU {
		t.Fatal("GPU without HARNESS_GPU")
	}
	t.Setenv("HARNESS_GPU", "1")
	if !withEnv(Options{}).GPU {
		t.Fatal("HARNESS_GPU=1 did not ask for the GPU")
	}
	if withEnv(Options{NoWebGPU: true}).GPU {
		t.Fatal("HARNESS_GPU turned WebGPU on for a NoWebGPU launch")
	}
	if f := Flags(withEnv(Options{})); f["use-webgpu-adapter"] != nil || f["use-angle"] != "vulkan" {
		t.Fatalf("flags under HARNESS_GPU=1: %v", f)
	}
}
