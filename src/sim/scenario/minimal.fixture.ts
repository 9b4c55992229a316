/** The smallest valid scenario (one group, one design, a one-field key), as tests vary it. */
export const MINIMAL_SCENARIO = {
  name: "s",
  cluster: { nodes: 2 },
  workload: { groups: [{ name: "g", entities: 10, fields: { id: "e{i}" }, writesPerS: 5 }] },
  designs: [
    {
      name: "d",
      schema: {
        version: 1,
        name: "k",
        layout: "text",
        segments: [{ field: "id", codec: { type: "string" } }],
      },
    },
  ],
};
