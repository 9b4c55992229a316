/** Where embedded tables live by default; its own module so naming a location never loads LevelDB. */
export const DEFAULT_EMBEDDED_DIRECTORY = "./.keyspread";
