// lowerscope: the desktop app. GLFW window + OpenGL 3 + Dear ImGui (Debian libimgui-dev 1.86,
// whose static library includes the GLFW and OpenGL3 backends).
//   lowerscope [FILE] [--pipeline P] [--profile fp|int] [--target T]
//              [--script FILE] [--screenshot OUT.png] [--size WxH]
#include <cstdio>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <GLFW/glfw3.h>
#include <fmt/format.h>
#include <imgui.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>

#include "core/session/builtin.h"
#include "app/lowerscope/app.h"

namespace {
ls::app::App* gApp = nullptr;

void onDrop(GLFWwindow*, int count, const char** paths) {
  if (!gApp) return;
  std::vector<std::string> v(paths, paths + count);
  gApp->onDrop(v);
}

void onGlfwError(int code, const char* msg) { fmt::print(stderr, "lowerscope: GLFW error {}: {}\n", code, msg); }
}  // namespace

int main(int argc, char** argv) {
  if (const ls::Status& reg = ls::registerBuiltins(); !reg) {
    std::fprintf(stderr, "error: %s\n", reg.message().c_str());
    return 1;
  }
  CLI::App cli{"lowerscope: step through the passes of an ML lowering pipeline"};
  ls::app::AppOptions opts;
  std::string size;
  cli.add_option("file", opts.file, "graph (.fxjson.json, .lsg, .tosa) or saved run (.lstrace, recorder bundle .lsbundle); default: the bundled sample model");
  cli.add_option("--pipeline", opts.pipeline, "pipeline to run (default: tosa when available, else generic)");
  cli.add_option("--profile", opts.profile, "fp or int")->check(CLI::IsMember({"fp", "int"}));
  cli.add_option("--target", opts.target, "generic, u55 or u85")->check(CLI::IsMember({"generic", "u55", "u85"}));
  cli.add_option("--script", opts.script, "run UI actions from this file (see viewers/model/script.h)");
  cli.add_flag("--script-keep-going", opts.scriptKeepGoing,
               "report a failing script command and run the next one (the GUI action fuzzer)");
  cli.add_flag("--script-echo", opts.scriptEcho, "print each script command to stderr as it starts (the fuzzer's reducer)");
  cli.add_option("--screenshot", opts.screenshot, "render until idle, save this PNG and exit");
  cli.add_option("--size", size, "window size WxH (default: last used, or 1600x1000)");
  cli.add_option("--timeout", opts.timeoutSec, "test modes: give up after this many seconds")->capture_default_str();
  bool noSettings = false, useSettings = false;
  cli.add_flag("--no-settings", noSettings, "neither read nor write the settings file");
  cli.add_flag("--use-settings", useSettings, "read and write the settings file also with --script/--screenshot");
  CLI11_PARSE(cli, argc, argv);
  // Test modes start from defaults so screenshots do not depend on the user's last session.
  opts.useSettings = !noSettings && (useSettings || (opts.script.empty() && opts.screenshot.empty()));

  glfwSetErrorCallback(onGlfwError);
  if (!glfwInit()) {
    fmt::print(stderr, "lowerscope: cannot initialise GLFW (no display? use xvfb-run for headless runs)\n");
    return 1;
  }
  // OpenGL 3.2 core: the ImGui backend then renders draw lists beyond 64k vertices (VtxOffset),
  // which the graph view needs at full zoom-out on large graphs.
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 2);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GL_TRUE);
  bool headless = !opts.screenshot.empty();
  if (headless) glfwWindowHint(GLFW_RESIZABLE, GLFW_FALSE);

  int width = 1600, height = 1000;
  {
    ls::viewmodel::Settings s = opts.useSettings ? ls::viewmodel::loadSettings(ls::viewmodel::configDir() + "/settings.ini")
                                                 : ls::viewmodel::Settings{};
    width = s.windowWidth, height = s.windowHeight;
  }
  if (!size.empty() && std::sscanf(size.c_str(), "%dx%d", &width, &height) != 2) {
    fmt::print(stderr, "lowerscope: --size expects WxH, got '{}'\n", size);
    return 2;
  }
  GLFWwindow* window = glfwCreateWindow(width, height, "Lowerscope", nullptr, nullptr);
  if (!window) {
    fmt::print(stderr, "lowerscope: cannot create an OpenGL 3 window\n");
    glfwTerminate();
    return 1;
  }
  glfwMakeContextCurrent(window);
  glfwSwapInterval(headless ? 0 : 1);

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;  // panel sizes are kept in our settings file
  ImGui::StyleColorsDark();
  ImGui::GetStyle().FrameRounding = 3.f;
  ImGui::GetStyle().ChildRounding = 3.f;
  ImGui_ImplGlfw_InitForOpenGL(window, true);
  ImGui_ImplOpenGL3_Init("#version 150");
  if (!(io.BackendFlags & ImGuiBackendFlags_RendererHasVtxOffset))
    fmt::print(stderr, "lowerscope: the OpenGL renderer cannot draw large meshes; the graph view limits detail\n");

  int rc = 0;
  {
    ls::app::App app(opts, window);
    gApp = &app;
    glfwSetDropCallback(window, onDrop);
    double lastInput = glfwGetTime();
    while (!glfwWindowShouldClose(window) && !app.wantsExit()) {
      // Sleep when nothing is going on; keep rendering for a moment after input so ImGui's
      // hover/click state settles.
      if (app.measuring()) glfwWaitEventsTimeout(0.5);
      else if (app.busy() || glfwGetTime() - lastInput < 0.5) glfwPollEvents();
      else glfwWaitEventsTimeout(0.25);
      ImGui_ImplOpenGL3_NewFrame();
      ImGui_ImplGlfw_NewFrame();
      app.beforeNewFrame();
      ImGui::NewFrame();
      if (io.MouseDelta.x != 0 || io.MouseDelta.y != 0 || io.MouseWheel != 0 || ImGui::IsAnyMouseDown() || io.InputQueueCharacters.Size)
        lastInput = glfwGetTime();
      for (bool k : io.KeysDown)
        if (k) lastInput = glfwGetTime();
      app.frame();
      ImGui::Render();
      int fbw = 0, fbh = 0;
      glfwGetFramebufferSize(window, &fbw, &fbh);
      glViewport(0, 0, fbw, fbh);
      glClearColor(0.09f, 0.09f, 0.10f, 1.f);
      glClear(GL_COLOR_BUFFER_BIT);
      ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
      app.afterRender();
      glfwSwapBuffers(window);
    }
    app.saveSettings();
    rc = app.exitCode();
    gApp = nullptr;
  }
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(window);
  glfwTerminate();
  return rc;
}
