/** The bundled scenarios (examples/*.yaml), inlined by the bundler: the page needs no server to open them. */
const FILES = import.meta.glob<string>("../../../examples/*.yaml", {
  query: "?raw",
  import: "default",
  eager: true,
});

export const EXAMPLES: Record<string, string> = Object.fromEntries(
  Object.entries(FILES).map(([path, text]) => [path.replace(/^.*\/|\.yaml$/g, ""), text]),
);

export const DEFAULT_EXAMPLE = "fleet-hotspot";
