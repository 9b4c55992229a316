/**
 * A simulation stopped because whoever asked for it no longer wants it (the studio's page moved on
 * to a newer request). Not a failure of the design being simulated: judges let it through, where a
 * design's own error becomes a failed candidate.
 */
export class SimulationCancelled extends Error {
  constructor() {
    super("the simulation was cancelled: a newer request replaced it");
    this.name = "SimulationCancelled";
  }
}
