// The extension module paratune._paratune: the library's estimate, simulate, plan, analyze,
// diagnose, validate, cluster replay and emit for the package
// around it (python/paratune/__init__.py), which wraps their JSON documents into typed results,
// and the exception InputError. Every call resolves its keyword arguments with the library's
// requests (the CLI's defaults), runs with the GIL released, and returns the document the CLI
// prints for --json, as text. plan(), analyze() and diagnose() stop on Ctrl-C (python/python_progress.h).
#include <pybind11/pybind11.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <memory>
#include <optional>
#include <string>

#include <pybind11/stl.h>

#include "scheduling/cluster_request.h"
#include "diagnose/analyze_request.h"
#include "diagnose/diagnose_json.h"
#include "diagnose/diagnose_request.h"
#include "diagnose/rule.h"
#include "emit/emit_json.h"
#include "emit/emit_layout.h"
#include "emit/emit_winner.h"
#include "plan/estimate_answer.h"
#include "plan/plan_json.h"
#include "plan/plan_search.h"
#include "plan/planner.h"
#include "python/keywords.h"
#include "report/report.h"
#include "python/python_progress.h"
#include "python/registry_handle.h"
#include "scenario/megatron_scenario.h"
#include "scenario/resolve_scenario.h"
#include "step/estimate_json.h"
#include "step/simulate_request.h"
#include "step/training_budget.h"
#include "analysis/reduced_trace.h"
#include "timeline/chrome_trace.h"
#include "util/file.h"
#include "validate/validate_file.h"
#include "validate/validation_json.h"
#include "util/error.h"
#include "util/field_flags.h"
#include "util/json_document.h"

namespace paratune::python {
namespace {

namespace py = pybind11;

// An output keyword's path (the CLI's output flags, cli/output_file.h): a file, not "-" (standard
// output is the CLI's) nor one of the call's inputs.
void RequireOutputFile(const std::string& keyword, const std::string& path, const std::vector<std::string>& inputs) {
  const std::string flag = FlagOf(keyword);
  if (path.empty() || path == "-") throw InputError(flag + ": give a file path (\"-\", standard output, is the CLI's)");
  RefuseOverwritingInputs(flag, path, inputs);
}

std::string EstimateDocument(const py::dict& kwargs) {
  const Keywords k = ReadKeywords(kwargs, "estimate", kScenario | kBudget | kMegatron);
  py::gil_scoped_release released;
  Scenario s = ResolveScenario(k.scenario);
  const std::optional<TrainingBudget> budget = ResolveTrainingBudget(k.train_tokens, k.gpu_hour_price);
  const std::optional<MegatronArgs> from = ApplyMegatronArgs(k.from_megatron, k.ignore_unknown, k.scenario, s);
  return DocumentText(EstimateAnswerJson(AnswerEstimate(s), budget, from));
}

// A finished search, kept with its request so that Plan.emit() writes the winner's framework
// settings (emit/emit_winner.h, what `plan --emit` writes) without searching again.
struct PlannedSearch {
  PlanRequest request;
  PlanResult result;

  // The paratune.emit/1 document; with "winner_rank" (1: the plan's winner) and, when the
  // framework refuses a faster layout, the note the CLI prints first.
  std::string Emit(const std::string& framework) const {
    py::gil_scoped_release released;
    const Framework f = ParseFramework(framework, "framework");
    EmittedWinner won = EmitWinner(f, result, request);
    if (won.rank > 0)
      won.emitted.notes.insert(won.emitted.notes.begin(),
                               fmt::format("layout #1 cannot be emitted for {} ({}); emitted #{}, the fastest it runs",
                                           FrameworkName(f), won.refused, won.rank + 1));
    nlohmann::json j = EmittedToJson(f, won.emitted);
    j["winner_rank"] = won.rank + 1;
    return DocumentText(j);
  }
};

// The plan's document and the search (a PlannedSearch) for Plan.emit().
py::tuple PlanDocument(const py::dict& kwargs, const py::object& progress) {
  const Keywords k = ReadKeywords(kwargs, "plan", kScenario | kBudget | kSearch);
  PythonProgress reporter(progress);
  try {
    auto planned = std::make_unique<PlannedSearch>();
    std::string doc;
    {
      py::gil_scoped_release released;
      PlanRequest& r = planned->request;
      r = ResolvePlanRequest(k.scenario, k.search);
      const std::optional<TrainingBudget> budget = ResolveTrainingBudget(k.train_tokens, k.gpu_hour_price);
      r.progress = &reporter;
      planned->result = Plan(r);
      r.progress = nullptr;
      doc = DocumentText(PlanToJson(planned->result, r, budget, SweepOf(r, k.search)));
    }
    return py::make_tuple(doc, py::cast(std::move(planned)));
  } catch (const Stopped&) {
    reporter.Raise();  // Ctrl-C or the callback's exception, kept by the reporter
  }
}

std::string EmitDocument(const std::string& framework, const py::dict& kwargs) {
  const Keywords k = ReadKeywords(kwargs, "emit", kScenario);
  py::gil_scoped_release released;
  const Framework f = ParseFramework(framework, "framework");
  return DocumentText(EmittedToJson(f, EmitLayout(f, ResolveScenario(k.scenario))));
}

std::string AnalyzeDocument(const std::vector<std::string>& inputs, const py::dict& kwargs,
                            const py::object& progress) {
  const Keywords k = ReadKeywords(kwargs, "analyze", kScenario | kTraces | kReading);
  AnalyzeRequest r = k.analyze;
  r.inputs = inputs;
  r.scenario = k.scenario;
  if (k.trace) RequireOutputFile("trace_out", *k.trace, inputs);
  PythonProgress reporter(progress);
  try {
    py::gil_scoped_release released;
    r.progress = &reporter;
    const AnalyzedTraces a = RunAnalyze(r);
    if (k.trace) WriteReducedTrace(a.ranks, a.analysis, *k.trace);
    return DocumentText(AnalyzedJson(a));
  } catch (const Stopped&) {
    reporter.Raise();
  }
}

std::string SimulateDocument(const py::dict& kwargs) {
  Keywords k = ReadKeywords(kwargs, "simulate", kScenario | kSimulate);
  py::gil_scoped_release released;
  const Scenario s = ResolveScenario(k.scenario);
  if (k.trace) RequireOutputFile("trace_out", *k.trace, {});
  k.simulate.record_events = k.trace.has_value();
  const StepResult step = RunSimulate(s, k.simulate);
  if (k.trace) WriteFileAtomic(*k.trace, ChromeTraceJson(step.simulation.timeline).dump() + "\n");
  return DocumentText(SimulatedJson(step, k.simulate, k.trace.value_or("")), k.simulate.timeline ? -1 : 2);
}

// The document and the notes about the inputs (the CLI prints them on standard error).
py::tuple DiagnoseDocument(const std::vector<std::string>& inputs, const py::dict& kwargs, const py::object& progress) {
  const Keywords k = ReadKeywords(kwargs, "diagnose", kScenario | kReading);
  DiagnoseRequest r;
  r.inputs = inputs;
  r.allow_partial = k.analyze.allow_partial;
  r.threads = k.analyze.threads;
  r.scenario = k.scenario;
  PythonProgress reporter(progress);
  try {
    DiagnoseOutcome out;
    {
      py::gil_scoped_release released;
      r.progress = &reporter;
      out = RunDiagnose(r);
    }
    return py::make_tuple(DocumentText(DiagnosisJson(out.diagnosis)), out.notes);
  } catch (const Stopped&) {
    reporter.Raise();
  }
}

std::string ValidateDocument(const std::string& file, const std::string& hardware, const py::object& progress) {
  PythonProgress reporter(progress);
  try {
    py::gil_scoped_release released;
    const ValidatedFile v = ValidateFile(file, hardware, &reporter);
    return DocumentText(ValidationJson(v.report, file));
  } catch (const Stopped&) {
    reporter.Raise();
  }
}

// The replay's document, its per-job CSV and its series CSV (the CLI's --jobs-out, --series).
py::tuple ClusterDocument(const py::dict& kwargs, const py::object& progress) {
  Keywords k = ReadKeywords(kwargs, "replay", kCluster);
  if (k.cluster.trace.empty()) throw py::type_error("replay() missing the job trace (job_history=PATH)");
  k.cluster.options.record_placements = false;  // only the Chrome trace of placements needs them
  PythonProgress reporter(progress);
  try {
    std::string doc, jobs, series;
    {
      py::gil_scoped_release released;
      k.cluster.progress = &reporter;
      const ClusterReplay replay = RunCluster(k.cluster);
      doc = DocumentText(ClusterJson(replay.run));
      jobs = JobsCsv(replay.run);
      series = SeriesCsv(replay.run);
    }
    return py::make_tuple(doc, jobs, series);
  } catch (const Stopped&) {
    reporter.Raise();
  }
}

// The page `paratune report` writes for one document (`label` stands for its file name).
std::string ReportPage(const std::string& document, const std::string& label, const std::string& title) {
  py::gil_scoped_release released;
  ReportOptions o;
  if (!title.empty()) o.title = title;
  return RenderReport({ParseReportInput(document, label)}, o);
}

std::vector<std::string> ReportSchemas() {
  std::vector<std::string> out;
  for (const SectionKind& k : SectionKinds()) out.emplace_back(k.schema);
  return out;
}

// Every rule of diagnose: (name, summary), as `paratune diagnose --list-rules`.
std::vector<std::pair<std::string, std::string>> RuleList() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& r : AllRules()) out.emplace_back(std::string(r->Name()), std::string(r->Summary()));
  return out;
}

void RegisterInputError(py::module_& m) {
  // Held for the life of the process (the module holds it too), so no destructor runs after the
  // interpreter is gone.
  static PyObject* input_error = py::exception<InputError>(m, "InputError", PyExc_ValueError).inc_ref().ptr();
  py::setattr(input_error, "__doc__",
              py::str("Bad input (an unknown model or GPU, a layout that breaks a rule, a bad value): the "
                      "one-line message `paratune` prints after \"error:\". A ValueError."));
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const InputError& e) {
      PyErr_SetString(input_error, InputErrorText(e.what()).c_str());
    }
  });
}

}  // namespace

void Define(py::module_& m) {
  m.doc() = "paratune's C++ library; use the package paratune (its functions wrap these)";
  RegisterInputError(m);
  DefineRegistry(m);
  m.def("estimate", &EstimateDocument, py::arg("kwargs"), "paratune.estimate/1 document text");
  py::class_<PlannedSearch>(m, "PlannedSearch", "a finished search (use Plan.emit)")
      .def("emit", &PlannedSearch::Emit, py::arg("framework"), "paratune.emit/1 document text of the winner");
  m.def("plan", &PlanDocument, py::arg("kwargs"), py::arg("progress") = py::none(),
        "(paratune.plan/1 document text, PlannedSearch)");
  m.def("analyze", &AnalyzeDocument, py::arg("inputs"), py::arg("kwargs"), py::arg("progress") = py::none(),
        "paratune.analyze/1 document text");
  m.def("simulate", &SimulateDocument, py::arg("kwargs"), "paratune.simulate/1 document text");
  m.def("diagnose", &DiagnoseDocument, py::arg("inputs"), py::arg("kwargs"), py::arg("progress") = py::none(),
        "(paratune.diagnose/1 document text, notes)");
  m.def("validate", &ValidateDocument, py::arg("file"), py::arg("hardware") = "", py::arg("progress") = py::none(),
        "paratune.validate/1 document text");
  m.def("cluster_replay", &ClusterDocument, py::arg("kwargs"), py::arg("progress") = py::none(),
        "(paratune.cluster/1 document text, jobs CSV, series CSV)");
  m.def("report", &ReportPage, py::arg("document"), py::arg("label"), py::arg("title") = "",
        "the HTML page of paratune report for one document");
  m.def("report_schemas", &ReportSchemas, "the schemas paratune report draws");
  m.def("rules", &RuleList, "[(name, summary)] of every diagnose rule");
  m.def("keywords", &KeywordNames, py::arg("takes"),
        "the keyword names of the groups in takes (1 scenario, 2 budget, 4 search, 8 traces)");
  m.def("emit", &EmitDocument, py::arg("framework"), py::arg("kwargs"), "paratune.emit/1 document text");
}

}  // namespace paratune::python

PYBIND11_MODULE(_paratune, m) { paratune::python::Define(m); }
