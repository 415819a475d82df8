import type { DefaultTheme } from 'vitepress';

type Item = DefaultTheme.SidebarItem;

/** A module or namespace of the reference: its name as imported, its page, its groups of members. */
interface ReferenceModule {
  name: string;
  link: string;
  /** "Interfaces", "Functions"…, each with its members' links. */
  groups: Array<{ text: string; members: Item[] }>;
}

/** The modules and namespaces of TypeDoc's sidebar (typedoc-sidebar.json), depth first, in its order. */
export function referenceModules(tree: readonly Item[]): ReferenceModule[] {
  const modules: ReferenceModule[] = [];
  const visit = (item: Item, name: string) => {
    if (item.link === undefined) throw new Error(`The reference's sidebar has a module without a page: ${name}.`);
    const module: ReferenceModule = { name, link: item.link, groups: [] };
    modules.push(module);
    const inner: Array<[Item, string]> = [];
    for (const child of item.items ?? []) {
      if (child.link !== undefined) {
        // A module in a module (authbroker/react in authbroker).
        inner.push([child, `${name}/${child.text}`]);
        continue;
      }
      // A group: its members, and the namespaces it holds (a namespace has members of its own).
      const members = (child.items ?? []).filter((member) => member.items === undefined);
      for (const namespace of (child.items ?? []).filter((member) => member.items !== undefined))
        inner.push([namespace, `${name} › ${namespace.text}`]);
      if (members.length > 0) module.groups.push({ text: child.text ?? '', members });
    }
    for (const [child, childName] of inner) visit(child, childName);
  };
  for (const item of tree) visit(item, item.text ?? '');
  return modules;
}

/** The folder of a page link: the sidebar key of every page in it. */
const folderOf = (link: string) => link.replace(/[^/]*$/, '');

/** A group's heading on its module's page (TypeDoc's `## Type Aliases` is `#type-aliases`). */
const groupAnchor = (group: string) => group.toLowerCase().replace(/\s+/g, '-');

/**
 * One sidebar per folder of the reference instead of one with all ~600 entries on each of its
 * ~570 pages (each page's HTML carries its sidebar: the site was 201 MB in issue 40). Every page
 * lists the modules, with its own module open: its groups as links to their tables on the module's
 * page, and the group the page is in listed in full, so that a page's neighbours are one click away.
 */
export function referenceSidebars(tree: readonly Item[], home: Item): Record<string, Item[]> {
  const modules = referenceModules(tree);
  const sidebarOf = (open: ReferenceModule | null, openGroup: string | null): Item[] => [
    home,
    {
      text: 'Modules',
      items: modules.map((module) => {
        if (module !== open) return { text: module.name, link: module.link };
        return {
          text: module.name,
          link: module.link,
          items: module.groups.map((group) =>
            group.text === openGroup
              ? { text: group.text, items: group.members }
              : { text: group.text, link: `${module.link}#${groupAnchor(group.text)}` },
          ),
        };
      }),
    },
  ];
  const sidebars: Record<string, Item[]> = { [folderOf(home.link ?? '/reference/')]: sidebarOf(null, null) };
  const claim = (key: string, sidebar: Item[]) => {
    if (key in sidebars) throw new Error(`Two parts of the reference would share the sidebar of ${key}.`);
    sidebars[key] = sidebar;
  };
  for (const module of modules) {
    claim(module.link, sidebarOf(module, null));
    for (const group of module.groups) {
      // A namespace listed as a member (a page of its own, no members of its own) is a folder of its own.
      for (const folder of new Set(group.members.map((member) => folderOf(member.link ?? ''))))
        if (folder !== module.link) claim(folder, sidebarOf(module, group.text));
    }
  }
  return sidebars;
}
