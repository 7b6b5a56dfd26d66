// File browser dialog.
#include "viewers/file_browser.h"

#include <filesystem>

#include <fmt/format.h>
#include <imgui.h>
#include <imgui_stdlib.h>

namespace ls::viewers {

void FileBrowser::open(const std::string& dir) {
  openRequested_ = true;
  cd(dir.empty() ? std::filesystem::current_path().string() : dir);
}

void FileBrowser::cd(const std::string& dir) {
  auto r = viewmodel::listDirectory(dir);
  selected_ = -1;
  if (!r) {
    error_ = r.message();
    return;
  }
  error_.clear();
  entries_ = std::move(r).value();
  std::error_code ec;
  dir_ = std::filesystem::absolute(dir, ec).lexically_normal().string();
  pathInput_ = dir_;
}

std::optional<std::string> FileBrowser::draw(const std::vector<std::string>& recent) {
  std::optional<std::string> chosen;
  if (openRequested_) {
    ImGui::OpenPopup("Open file");
    openRequested_ = false;
  }
  ImVec2 vs = ImGui::GetMainViewport()->Size;
  ImGui::SetNextWindowSize(ImVec2(std::min(760.f, vs.x * 0.9f), std::min(520.f, vs.y * 0.85f)), ImGuiCond_Appearing);
  if (!ImGui::BeginPopupModal("Open file", nullptr)) return chosen;
  ImGui::SetNextItemWidth(-70);
  bool enter = ImGui::InputText("##path", &pathInput_, ImGuiInputTextFlags_EnterReturnsTrue);
  ImGui::SameLine();
  if (ImGui::Button("Go") || enter) {
    std::error_code ec;
    if (std::filesystem::is_directory(pathInput_, ec)) cd(pathInput_);
    else if (std::filesystem::is_regular_file(pathInput_, ec)) chosen = pathInput_;
    else error_ = fmt::format("{}: no such file or directory", pathInput_);
  }
  if (!error_.empty()) ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "%s", error_.c_str());
  float listH = ImGui::GetContentRegionAvail().y - ImGui::GetFrameHeightWithSpacing() * 1.3f;
  ImGui::BeginChild("##entries", ImVec2(ImGui::GetContentRegionAvail().x * 0.62f, listH), true);
  std::string cdTo;
  for (size_t i = 0; i < entries_.size(); ++i) {
    const viewmodel::FileEntry& e = entries_[i];
    std::string label = e.directory ? e.name + "/" : fmt::format("{}  ({:.1f} KB)", e.name, double(e.size) / 1024.0);
    if (ImGui::Selectable(label.c_str(), selected_ == int(i), ImGuiSelectableFlags_AllowDoubleClick)) {
      selected_ = int(i);
      if (!e.directory) pathInput_ = e.path;
      if (ImGui::IsMouseDoubleClicked(0)) {
        if (e.directory) cdTo = e.path;
        else chosen = e.path;
      }
    }
  }
  ImGui::EndChild();
  if (!cdTo.empty()) cd(cdTo);
  ImGui::SameLine();
  ImGui::BeginChild("##recent", ImVec2(0, listH), true);
  ImGui::TextDisabled("Recent files");
  for (const std::string& r : recent) {
    std::string name = std::filesystem::path(r).filename().string();
    if (ImGui::Selectable(name.c_str())) chosen = r;
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", r.c_str());
  }
  ImGui::EndChild();
  bool canOpen = selected_ >= 0 && size_t(selected_) < entries_.size() && !entries_[size_t(selected_)].directory;
  if (ImGui::Button("Open") && canOpen) chosen = entries_[size_t(selected_)].path;
  ImGui::SameLine();
  if (ImGui::Button("Cancel") || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape))) ImGui::CloseCurrentPopup();
  if (chosen) ImGui::CloseCurrentPopup();
  ImGui::EndPopup();
  return chosen;
}

}  // namespace ls::viewers
