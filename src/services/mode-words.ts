// A mode's bits in words (C8: what is wrong with a path): "the group", "others", or both, as the
// bits say, never "others" for a group's bit (a 0770 directory is its group's, issue 39).

/** `0755`: a mode's permission bits as `ls -l` users write them (the special bits too, when set). */
export const octal = (mode: number): string => `0${(mode & 0o7777).toString(8).padStart(3, "0")}`

/** Who besides the owner the bits of `mask` in `mode` open it to: "the group", "others", "the group and others". */
export const openedTo = (mode: number, mask: number): string => {
  const group = (mode & mask & 0o070) !== 0
  const others = (mode & mask & 0o007) !== 0
  return group && others ? "the group and others" : group ? "the group" : "others"
}
