import { it } from "vitest";
import { diagnoseEvidence } from "./diagnose/diagnosis/diagnose.js";
import { plantedProblems } from "./diagnose/gather/planted.testsuite.js";
import { judgeScenario } from "./lab/judge.js";
it("dbg", () => {
  for (const p of plantedProblems().filter((p) => !process.env.ONLY || p.name.includes(process.env.ONLY))) {
    const t0 = Date.now();
    const r = diagnoseEvidence(p.schema, { store: "bigtable", table: "t", heat: { kind: "hot-tablets", cluster: "c", start: new Date(), end: new Date() }, hotTablets: p.hotTablets("t"), keySample: p.keys }, { nodes: p.nodes });
    console.log(p.name, r.diagnosis.kind, r.scenarioProblem, JSON.stringify(r.scenario?.observed), r.scenario?.workload.groups.map((g) => `${g.name}:${g.entities}:${Math.round(g.writesPerS)}`).join(" | "));
    if (!r.scenario) continue;
    const v = judgeScenario(r.scenario, { durationS: Number(process.env.DUR ?? 600), sensitivity: false });
    const c = v.calibration!;
    console.log("  calib", c.fit.status, c.fit.status === "fitted" ? JSON.stringify(c.fit.figures) : (c.fit as {side:string}).side, JSON.stringify(c.atEnds), "rec", v.advice.recommended?.candidate.name, v.advice.recommended?.nodes, v.advice.needsMoreNodes, Date.now() - t0, "ms");
  }
}, 600_000);
