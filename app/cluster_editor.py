"""Edit > Cluster...: members, paging volumes, links and guests of the scenario, edited in its file.

The dialog edits the scenario's TOML text through ``toml_doc.ScenarioDoc`` (tomlkit), so the
planner's comments and key order survive. After every edit the text is read by the engine's own
loader (``loads_scenario``): the message under the tree is the one ``ssisim check`` gives for the
same file, and Apply waits until there is none. Every edit is one step of an undo stack that
keeps the text before and after it.
"""

from __future__ import annotations

import math
from pathlib import Path as FilePath
from typing import Any, Protocol

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QAction, QCloseEvent, QKeyEvent, QKeySequence, QUndoCommand, QUndoStack
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QTableWidget,
    QTableWidgetItem,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ssisim.engine import (
    CURRENT_VERSION,
    WORKLOAD_TYPES,
    ScenarioConfig,
    ScenarioError,
    loads_scenario,
)

from .toml_doc import DocError, Path, ScenarioDoc, number, parse_typed, shown, size_mb


class Host(Protocol):
    """What the editor needs of the main window."""

    ask_before_discarding: bool

    def confirm_discard(self, action: str) -> bool:
        """Ask before the work in progress is lost; True: go ahead."""

    def start_scenario(self, scenario: ScenarioConfig) -> None:
        """Start ``scenario`` in the window (paused), as opening its file does."""

    def remember_dir(self, folder: str | FilePath) -> None:
        """The folder a file was saved to."""


def check_text(text: str, path: str) -> tuple[ScenarioConfig | None, str]:
    """The scenario ``text`` would be as the file ``path``, and what ``ssisim check`` says of it
    (without its ``ssisim: `` prefix): the loader's error, or ``path: OK (...)``."""
    try:
        sc = loads_scenario(text, path)
    except ScenarioError as e:
        return None, str(e)
    extra = f", lesson {sc.lesson.id!r}" if sc.lesson is not None else ""
    if sc.objectives:
        extra += f", {len(sc.objectives)} objectives"
    return sc, (f"{path}: OK ({len(sc.members)} members, {len(sc.guests)} guests, "
                f"{len(sc.timeline)} timeline commands{extra}, format version {CURRENT_VERSION})")


#: Form fields: key in the file, label, kind (``parse_typed``), default shown when absent, tip.
MEMBER_FIELDS = (
    ("name", "Name", "str", "", "System identifier, 1 to 8 characters (A-Z 0-9 $ # @ _). "
     "Renaming a member renames it in its guests, links and objectives too."),
    ("cpus", "CPUs", "int", "4", "Logical processors (IFLs), 1 to 256"),
    ("central", "Central storage", "size", "", "Central storage, written as CP writes sizes: "
     "16G, 512M, 2T (required)"),
    ("xstor", "XSTOR", "size", "0 (none)", "Expanded storage; 0 or empty: none"),
)
VOLUME_FIELDS = (
    ("volid", "Volume label", "str", "PAGnnn by position", "1 to 6 characters"),
    ("size", "Size", "size", "", "Paging space on the volume, e.g. 8G (giving a size removes "
     "slots)"),
    ("slots", "Slots", "int", "", "Paging space as a count of 4 KiB slots, instead of a size "
     "(giving slots removes the size)"),
    ("service_ms", "Service time (ms)", "number", "0.5",
     "Time to read or write one page when the volume has no queue, more than 0, at most 10000"),
    ("queue_depth", "Queue depth", "int", "4",
     "I/Os the volume serves at once (HyperPAV aliases, NVMe queues), 1 to 256"),
)
GUEST_FIELDS = (
    ("userid", "User ID", "str", "", "1 to 8 characters (A-Z 0-9 $ # @ _), each once"),
    ("storage", "Storage", "size", "", "Defined (virtual) storage, e.g. 4G (required)"),
    ("vcpus", "Virtual CPUs", "int", "1", "1 to 64"),
    ("share", "Share", "number", "100", "RELATIVE SHARE, 1 to 10000"),
    ("set_reserved", "SET RESERVED", "reserved", "0",
     "Pages the demand scan does not steal: a page count, or a size such as 512M"),
)
#: Size and slots of a volume exclude each other: setting one removes the other.
EXCLUSIVE = {"size": "slots", "slots": "size"}
#: The keys of undo and redo, also while a form field has the focus.
UNDO_KEYS = (QKeySequence("Ctrl+Z"),)
REDO_KEYS = (QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y"))


class EditCommand(QUndoCommand):
    """One edit of the document: its text before and after, and what was selected."""

    def __init__(self, editor: ClusterEditor, before: str, after: str, label: str,
                 select_before: Path | None, select_after: Path | None) -> None:
        super().__init__(label)
        self.editor = editor
        self.before, self.after = before, after
        self.select_before, self.select_after = select_before, select_after

    def redo(self) -> None:
        """Show the text after the edit."""
        self.editor.show_text(self.after, self.select_after)

    def undo(self) -> None:
        """Show the text before the edit, exactly as it was."""
        self.editor.show_text(self.before, self.select_before)


class _Fields(QWidget):
    """A form of line edits for one kind of table; each commits its field when edited."""

    def __init__(self, editor: ClusterEditor, fields: tuple, title: str) -> None:
        super().__init__()
        self.editor = editor
        self.box = QGroupBox(title)
        self.form = QFormLayout(self.box)
        self.form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.edits: dict[str, QLineEdit] = {}
        self.kinds: dict[str, str] = {}
        for key, label, kind, default, tip in fields:
            e = QLineEdit()
            e.setPlaceholderText(default)
            e.setToolTip(f"{key}: {tip}" + (f" (default {default})" if default else ""))
            e.editingFinished.connect(lambda k=key: self._commit(k))
            editor.watch_keys(e)
            self.form.addRow(label, e)
            self.edits[key] = e
            self.kinds[key] = kind
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.box)
        lay.addStretch(1)  # the box as tall as its fields, not as the dialog

    def load(self, table: dict[str, Any]) -> None:
        """Show a table's values (absent keys as their default, greyed)."""
        for key, e in self.edits.items():
            e.setText(shown(table.get(key)))

    def _commit(self, key: str) -> None:
        self.editor.set_field(key, parse_typed(self.edits[key].text(), self.kinds[key]))


class ClusterEditor(QDialog):
    """The cluster of a scenario, edited in its TOML file, with undo, live checks and Apply.

    Parameters
    ----------
    host : Host
        The main window: Apply starts the edited scenario there.
    scenario : ScenarioConfig
        The scenario to edit (its ``source_text`` and ``path``).
    bundled : bool
        The file is one of the program's own: it is saved under another name only.
    """

    def __init__(self, host: Host, scenario: ScenarioConfig, bundled: bool = False,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.host = host
        self.path = scenario.path or "<scenario>"
        self.bundled = bundled
        self.doc = ScenarioDoc(scenario.source_text)
        self.config: ScenarioConfig | None = None
        #: The loader's error for the text as it stands (``ssisim check``'s message), or None.
        self.error: str | None = None
        self.message = ""
        #: Ask before closing with edits neither saved nor applied (off in tests).
        self.ask_before_closing = True
        self._applied = self.doc.text
        self._selected: Path | None = None
        self._loading = False
        self.setWindowTitle(f"Cluster of {scenario.name}[*]")
        self.stack = QUndoStack(self)
        self.stack.cleanChanged.connect(self._clean_changed)

        # -- actions and keys ------------------------------------------------------------------
        self.act_undo = self.stack.createUndoAction(self, "Undo")
        self.act_undo.setShortcuts(list(UNDO_KEYS))
        self.act_redo = self.stack.createRedoAction(self, "Redo")
        self.act_redo.setShortcuts(list(REDO_KEYS))
        for act in (self.act_undo, self.act_redo):
            act.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            self.addAction(act)
        self.act_save = QAction("Save", self)
        self.act_save.setShortcut(QKeySequence("Ctrl+S"))
        self.act_save.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.act_save.triggered.connect(lambda _c=False: self.save())
        self.addAction(self.act_save)

        # -- the tree ---------------------------------------------------------------------------
        self.tree = QTreeWidget()
        self.tree.setHeaderLabels(["Item", "Summary"])
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.tree.header().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        self.tree.header().setStretchLastSection(True)
        self.tree.currentItemChanged.connect(self._current_changed)
        self.btn_add_member = QPushButton("Member")
        self.btn_add_volume = QPushButton("Volume")
        self.btn_add_link = QPushButton("Link")
        self.btn_add_guest = QPushButton("Guest")
        self.btn_remove = QPushButton("Remove")
        tips = (("a member (z/VM system) to the cluster", self.add_member, self.btn_add_member),
                ("a paging volume to the selected member", self.add_volume,
                 self.btn_add_volume),
                ("an ISFC link between two members", self.add_link, self.btn_add_link),
                ("a guest on the selected member", self.add_guest, self.btn_add_guest))
        for tip, slot, btn in tips:
            btn.setToolTip(f"Add {tip}")
            btn.clicked.connect(lambda _c=False, s=slot: s())
        self.btn_remove.setToolTip("Remove the selected member, volume, link or guest")
        self.btn_remove.clicked.connect(lambda _c=False: self.remove_selected())
        adds = QHBoxLayout()
        adds.addWidget(QLabel("Add:"))
        for b in (self.btn_add_member, self.btn_add_volume, self.btn_add_link,
                  self.btn_add_guest):
            adds.addWidget(b)
        adds.addStretch(1)
        adds.addWidget(self.btn_remove)
        left = QWidget()
        ll = QVBoxLayout(left)
        ll.setContentsMargins(0, 0, 0, 0)
        ll.addWidget(self.tree, 1)
        ll.addLayout(adds)

        # -- the forms --------------------------------------------------------------------------
        self.member_form = _Fields(self, MEMBER_FIELDS, "Member")
        self.volume_form = _Fields(self, VOLUME_FIELDS, "Paging volume")
        self.guest_form = _Fields(self, GUEST_FIELDS, "Guest")
        self._build_guest_extras()
        self.link_form = self._build_link_form()
        self.blank = QLabel("Select a member, paging volume, link or guest to edit it, or add "
                            "one with the buttons below the tree.\n\nEvery edit is checked as "
                            "`ssisim check` checks the file; Undo (Ctrl+Z) and Redo "
                            "(Ctrl+Shift+Z) step through the edits.")
        self.blank.setWordWrap(True)
        self.blank.setAlignment(Qt.AlignmentFlag.AlignTop)
        self.forms = QStackedWidget()
        for w in (self.blank, self.member_form, self.volume_form, self.link_form,
                  self.guest_form):
            self.forms.addWidget(w)
        right = QWidget()
        rl = QVBoxLayout(right)
        rl.setContentsMargins(0, 0, 0, 0)
        rl.addWidget(self.forms)
        rl.addStretch(0)

        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(left)
        split.addWidget(right)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        split.setChildrenCollapsible(False)
        # fixed shares: the forms differ in width, and the tree must not jump when one shows
        split.setSizes([560, 420])

        # -- the check, the file and the buttons -----------------------------------------------
        self.file_label = QLabel("")
        self.file_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.check_label = QLabel("")
        self.check_label.setWordWrap(True)
        self.check_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.check_label.setToolTip("What `ssisim check` says of the file as edited")
        self.btn_undo = QPushButton("Undo")
        self.btn_undo.clicked.connect(self.stack.undo)
        self.btn_redo = QPushButton("Redo")
        self.btn_redo.clicked.connect(self.stack.redo)
        self.stack.canUndoChanged.connect(self.btn_undo.setEnabled)
        self.stack.canRedoChanged.connect(self.btn_redo.setEnabled)
        self.stack.undoTextChanged.connect(
            lambda t: self.btn_undo.setToolTip(f"Undo {t} (Ctrl+Z)" if t else "Undo (Ctrl+Z)"))
        self.stack.redoTextChanged.connect(
            lambda t: self.btn_redo.setToolTip(f"Redo {t} (Ctrl+Shift+Z)" if t
                                               else "Redo (Ctrl+Shift+Z)"))
        self.btn_undo.setEnabled(False)
        self.btn_redo.setEnabled(False)
        self.btn_save = QPushButton("Save")
        self.btn_save.clicked.connect(lambda _c=False: self.save())
        self.btn_save_as = QPushButton("Save As...")
        self.btn_save_as.clicked.connect(lambda _c=False: self.save_as())
        self.btn_apply = QPushButton("Apply")
        self.btn_apply.setToolTip("Restart the simulation in the window with this cluster "
                                  "(paused, from t = 0), as opening the file would")
        self.btn_apply.clicked.connect(lambda _c=False: self.apply())
        self.btn_close = QPushButton("Close")
        self.btn_close.clicked.connect(self.close)
        buttons = QHBoxLayout()
        for b in (self.btn_undo, self.btn_redo):
            buttons.addWidget(b)
        buttons.addStretch(1)
        for b in (self.btn_save, self.btn_save_as, self.btn_apply, self.btn_close):
            buttons.addWidget(b)

        lay = QVBoxLayout(self)
        lay.addWidget(self.file_label)
        lay.addWidget(split, 1)
        lay.addWidget(self.check_label)
        lay.addLayout(buttons)
        # Enter commits a field; it must never press a button of the dialog
        for b in self.findChildren(QPushButton):
            b.setAutoDefault(False)
            b.setDefault(False)
        self.resize(1000, 680)
        self.show_text(self.doc.text, None)
        self.stack.setClean()

    def _clean_changed(self, clean: bool) -> None:
        self.setWindowModified(not clean)

    # -- building the guest's and link's forms ----------------------------------------------------
    def _build_guest_extras(self) -> None:
        form = self.guest_form.form
        self.guest_member = QComboBox()
        self.guest_member.setEditable(True)
        self.guest_member.setToolTip("member: the member the guest logs on to at the start")
        self.guest_member.activated.connect(lambda _i: self._commit_guest_member())
        self.guest_member.lineEdit().editingFinished.connect(self._commit_guest_member)
        self.watch_keys(self.guest_member.lineEdit())
        form.insertRow(1, "Member", self.guest_member)
        self.workload_type = QComboBox()
        for k, spec in WORKLOAD_TYPES.items():
            self.workload_type.addItem(k, k)
            self.workload_type.setItemData(self.workload_type.count() - 1, spec["doc"],
                                           Qt.ItemDataRole.ToolTipRole)
        self.workload_type.activated.connect(lambda _i: self._commit_workload_type())
        self.workload_doc = QLabel("")
        self.workload_doc.setWordWrap(True)
        self.workload_box = QGroupBox("Workload")
        wl = QVBoxLayout(self.workload_box)
        top = QFormLayout()
        top.addRow("Type", self.workload_type)
        wl.addLayout(top)
        wl.addWidget(self.workload_doc)
        self.param_form = QFormLayout()
        wl.addLayout(self.param_form)
        self.params: dict[str, QDoubleSpinBox] = {}
        self.guest_form.layout().insertWidget(1, self.workload_box)

    def _build_link_form(self) -> QWidget:
        w = QWidget()
        box = QGroupBox("ISFC link")
        form = QFormLayout(box)
        self.link_a = QComboBox()
        self.link_b = QComboBox()
        for c in (self.link_a, self.link_b):
            c.setEditable(True)
            c.activated.connect(lambda _i: self._commit_link_members())
            c.lineEdit().editingFinished.connect(self._commit_link_members)
            self.watch_keys(c.lineEdit())
        pair = QHBoxLayout()
        pair.addWidget(self.link_a, 1)
        pair.addWidget(QLabel("and"))
        pair.addWidget(self.link_b, 1)
        form.addRow("Members", pair)
        self.chpids = QTableWidget(0, 2)
        self.chpids.setHorizontalHeaderLabels(["Gbit/s", "CTCs"])
        self.chpids.horizontalHeaderItem(0).setToolTip("gbps: FICON speed, 2, 4 or 8")
        self.chpids.horizontalHeaderItem(1).setToolTip("ctcs: CTC devices, 1 to 16 (default 4)")
        self.chpids.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.chpids.setMinimumHeight(150)
        self.chpids.itemChanged.connect(lambda _it: self._commit_chpids())
        form.addRow("CHPIDs", self.chpids)
        add = QPushButton("Add CHPID")
        add.clicked.connect(lambda _c=False: self._add_chpid())
        rm = QPushButton("Remove CHPID")
        rm.clicked.connect(lambda _c=False: self._remove_chpid())
        row = QHBoxLayout()
        row.addWidget(add)
        row.addWidget(rm)
        row.addStretch(1)
        form.addRow("", row)
        self.link_capacity = QLabel("")
        form.addRow("Capacity", self.link_capacity)
        lay = QVBoxLayout(w)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(box)
        lay.addStretch(1)
        return w

    # -- keys ---------------------------------------------------------------------------------
    def watch_keys(self, edit: QLineEdit) -> None:
        """Let Ctrl+Z and Ctrl+Shift+Z reach the dialog from a field with nothing of its own
        to undo (a field's text is committed as soon as it is edited)."""
        edit.installEventFilter(self)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        """Hand undo and redo keys to the dialog unless the field has typing to undo."""
        if event.type() == QEvent.Type.ShortcutOverride and isinstance(obj, QLineEdit) \
                and isinstance(event, QKeyEvent):
            seq = QKeySequence(event.keyCombination())
            if any(seq.matches(k) == QKeySequence.SequenceMatch.ExactMatch for k in UNDO_KEYS):
                return not obj.isUndoAvailable()
            if any(seq.matches(k) == QKeySequence.SequenceMatch.ExactMatch for k in REDO_KEYS):
                return not obj.isRedoAvailable()
        return super().eventFilter(obj, event)

    # -- the document -------------------------------------------------------------------------
    def text(self) -> str:
        """The document as it stands."""
        return self.doc.text

    @property
    def valid(self) -> bool:
        """The document loads as a scenario."""
        return self.error is None

    def show_text(self, text: str, select: Path | None) -> None:
        """Show ``text`` (an edit, or undoing one): check it, redraw the tree and the form."""
        self.doc = ScenarioDoc(text)
        self.config, self.message = check_text(text, self.path)
        self.error = None if self.config is not None else self.message
        if self.error is None:
            self.check_label.setText(f"\u2714 {self.message}")
            self.check_label.setStyleSheet("QLabel { color: palette(text); }")
        else:
            self.check_label.setText(self.error)
            self.check_label.setStyleSheet("QLabel { color: #c62828; font-weight: bold; }")
        self.btn_apply.setEnabled(self.error is None)
        self.btn_apply.setToolTip(
            "Restart the simulation in the window with this cluster (paused, from t = 0), as "
            "opening the file would" if self.error is None
            else "The scenario has an error (below the tree): fix it to apply")
        self._show_file()
        self._fill_tree(select if select is not None else self._selected)

    def _show_file(self) -> None:
        name = FilePath(self.path).name if self.path != "<scenario>" else "an unsaved scenario"
        note = " (a bundled scenario: Save As to keep your edits)" if self.bundled else ""
        self.file_label.setText(f"Editing {name}{note}")
        self.file_label.setToolTip(self.path)
        self.btn_save.setEnabled(self._can_save())
        self.act_save.setEnabled(True)

    def _can_save(self) -> bool:
        return not self.bundled and self.path != "<scenario>" and FilePath(self.path).is_file()

    def edit(self, after: str, label: str, select: Path | None = None) -> bool:
        """Make ``after`` the document, as one step of the undo stack; False when unchanged."""
        if after == self.doc.text:
            return False
        self.stack.push(EditCommand(self, self.doc.text, after, label, self._selected,
                                    select if select is not None else self._selected))
        return True

    def _try(self, make: Any, label: str, select: Path | None = None) -> bool:
        """Run an edit of ``toml_doc``; a message box says why one cannot be made."""
        try:
            out = make()
        except DocError as e:
            QMessageBox.warning(self, "Not edited", str(e))
            self._load_form()
            return False
        if isinstance(out, tuple):
            out, select = out
        return self.edit(out, label, select)

    # -- the tree -------------------------------------------------------------------------------
    def _fill_tree(self, select: Path | None) -> None:
        self._loading = True
        try:
            self.tree.clear()
            groups = {}
            for key, title in (("member", "Members"), ("link", "Links"), ("guest", "Guests")):
                g = QTreeWidgetItem(self.tree, [title, ""])
                g.setData(0, Qt.ItemDataRole.UserRole, (key,))
                f = g.font(0)
                f.setBold(True)
                g.setFont(0, f)
                g.setFlags(g.flags() & ~Qt.ItemFlag.ItemIsSelectable)
                groups[key] = g
            for mi, m in enumerate(self.doc.members()):
                it = self._item(groups["member"], ("member", mi), str(m.get("name", "?")),
                                _member_summary(m))
                for vi, v in enumerate(self.doc.volumes(mi)):
                    self._item(it, ("member", mi, "volume", vi),
                               str(v.get("volid", f"(volume {vi + 1})")), _volume_summary(v))
            for li, ln in enumerate(self.doc.links()):
                pair = ln.get("members", [])
                name = " - ".join(map(str, pair)) if isinstance(pair, list) else "?"
                self._item(groups["link"], ("link", li), name, _link_summary(ln))
            for gi, g in enumerate(self.doc.guests()):
                self._item(groups["guest"], ("guest", gi), str(g.get("userid", "?")),
                           _guest_summary(g))
            for g in groups.values():
                g.setText(1, f"{g.childCount()}")
            self.tree.expandAll()
            found = self._find(select) if select is not None else None
            if found is not None:
                self.tree.setCurrentItem(found)
                self.tree.scrollToItem(found)
            self._selected = select if found is not None else None
        finally:
            self._loading = False
        self._load_form()

    @staticmethod
    def _item(parent: QTreeWidgetItem, path: Path, name: str, summary: str) -> QTreeWidgetItem:
        it = QTreeWidgetItem(parent, [name, summary])
        it.setData(0, Qt.ItemDataRole.UserRole, path)
        it.setToolTip(1, summary)
        return it

    def _find(self, path: Path) -> QTreeWidgetItem | None:
        stack = [self.tree.topLevelItem(i) for i in range(self.tree.topLevelItemCount())]
        while stack:
            it = stack.pop()
            if it.data(0, Qt.ItemDataRole.UserRole) == path and len(path) > 1:
                return it
            stack.extend(it.child(i) for i in range(it.childCount()))
        return None

    def select(self, path: Path | None) -> None:
        """Select the table at ``path`` (``("guest", 3)``) and show its form."""
        found = self._find(path) if path is not None else None
        if found is None:
            self.tree.setCurrentItem(None)
            self._selected = None
            self._load_form()
        else:
            self.tree.setCurrentItem(found)

    @property
    def selected(self) -> Path | None:
        """The path of the table whose form is shown."""
        return self._selected

    def _current_changed(self, cur: QTreeWidgetItem | None, _prev: Any) -> None:
        if self._loading:
            return
        path = cur.data(0, Qt.ItemDataRole.UserRole) if cur is not None else None
        self._selected = tuple(path) if path is not None and len(path) > 1 else None
        self._load_form()

    # -- the forms ------------------------------------------------------------------------------
    def _load_form(self) -> None:
        path = self._selected
        self._loading = True
        try:
            if path is None:
                self.forms.setCurrentWidget(self.blank)
            elif path[0] == "member" and len(path) == 2:
                self.member_form.load(self.doc.get(path))
                self.forms.setCurrentWidget(self.member_form)
            elif path[0] == "member":
                self.volume_form.load(self.doc.get(path))
                self.volume_form.box.setTitle(
                    f"Paging volume of {self.doc.members()[path[1]].get('name', '?')}")
                self.forms.setCurrentWidget(self.volume_form)
            elif path[0] == "link":
                self._load_link(self.doc.get(path))
                self.forms.setCurrentWidget(self.link_form)
            else:
                self._load_guest(self.doc.get(path))
                self.forms.setCurrentWidget(self.guest_form)
        finally:
            self._loading = False
        self.btn_remove.setEnabled(path is not None)
        has_member = bool(self.doc.members())
        self.btn_add_volume.setEnabled(has_member)

    def _load_guest(self, g: dict[str, Any]) -> None:
        self.guest_form.load(g)
        self.guest_member.clear()
        self.guest_member.addItems(self.doc.member_names())
        self.guest_member.setEditText(shown(g.get("member")))
        wl = g.get("workload", {"type": "idle"})
        wl = wl if isinstance(wl, dict) else {}
        kind = str(wl.get("type", "idle")).lower()
        i = self.workload_type.findData(kind)
        self.workload_type.setCurrentIndex(i)
        self._build_params(kind, {str(k).lower(): v for k, v in wl.items() if k != "type"})

    def _build_params(self, kind: str, values: dict[str, Any]) -> None:
        while self.param_form.rowCount():
            self.param_form.removeRow(0)
        self.params = {}
        spec = WORKLOAD_TYPES.get(kind)
        if spec is None:
            self.workload_doc.setText(f"{kind!r} is not a workload type")
            return
        self.workload_doc.setText(spec["doc"] + ("" if spec["params"] else " (no parameters)"))
        for name, p in spec["params"].items():
            spin = QDoubleSpinBox()
            hi = p.hi if math.isfinite(p.hi) else 1e12
            spin.setRange(p.lo, hi)
            # whole counts show as such; fractions and microseconds need three places
            spin.setDecimals(0 if p.unit in ("count", "0|1") else
                             3 if hi <= 1 or p.unit == "fraction" or 0 < p.lo < 0.01 else 2)
            spin.setKeyboardTracking(False)
            v = values.get(name, p.default)
            try:
                spin.setValue(float(v))
            except (TypeError, ValueError):
                spin.setValue(p.default)
            spin.setToolTip(f"{name}: {p.doc} ({p.unit}; {p.lo:g} to {p.hi:g}; default "
                            f"{p.default:g})")
            spin.valueChanged.connect(lambda _v, n=name: self._commit_param(n))
            self.watch_keys(spin.findChild(QLineEdit))
            label = QLabel(f"{name} ({p.unit})")
            if name in values:  # given in the file, not a default
                f = label.font()
                f.setBold(True)
                label.setFont(f)
            label.setToolTip(spin.toolTip())
            self.param_form.addRow(label, spin)
            self.params[name] = spin

    def _load_link(self, ln: dict[str, Any]) -> None:
        names = self.doc.member_names()
        pair = ln.get("members", [])
        pair = [shown(m) for m in pair] if isinstance(pair, list) else []
        pair += [""] * (2 - len(pair))
        for combo, name in zip((self.link_a, self.link_b), pair[:2]):
            combo.clear()
            combo.addItems(names)
            combo.setEditText(name)
        self.chpids.blockSignals(True)
        chp = ln.get("chpids", [])
        chp = [c for c in chp if isinstance(c, dict)] if isinstance(chp, list) else []
        self.chpids.setRowCount(len(chp))
        total = 0.0
        for r, c in enumerate(chp):
            self.chpids.setItem(r, 0, QTableWidgetItem(shown(c.get("gbps"))))
            ctcs = QTableWidgetItem(shown(c.get("ctcs")))
            ctcs.setToolTip("empty: 4")
            self.chpids.setItem(r, 1, ctcs)
            g = c.get("gbps")
            total += g if isinstance(g, int | float) and not isinstance(g, bool) else 0
        self.chpids.blockSignals(False)
        self.link_capacity.setText(f"{len(chp)} CHPIDs, capacity factor {number(total)} "
                                   "(the sum of their speeds in Gbit/s)")

    # -- edits from the forms ----------------------------------------------------------------------
    def set_field(self, key: str, value: Any) -> bool:
        """Set a field of the selected table (None: remove it, its default holds)."""
        path = self._selected
        if path is None or self._loading:
            return False
        current = self.doc.get(path)
        if current.get(key) == value and type(current.get(key)) is type(value):
            return False
        what = _describe(self.doc, path)
        if path[0] == "member" and len(path) == 2 and key == "name" and value is not None:
            return self._try(lambda: self.doc.rename_member(path[1], str(value)),
                             f"rename member {current.get('name', '')} to {value}")
        label = f"{key} of {what}" + (f" = {value}" if value is not None else " to default")
        if key in EXCLUSIVE and value is not None:
            values = {key: value, EXCLUSIVE[key]: None}
            return self._try(lambda: self.doc.set_fields(path, values), label)
        return self._try(lambda: self.doc.set_field(path, key, value), label)

    def _commit_guest_member(self) -> None:
        if not self._loading:
            self.set_field("member", parse_typed(self.guest_member.currentText(), "str"))

    def _commit_workload_type(self) -> None:
        path = self._selected
        if self._loading or path is None or path[0] != "guest":
            return
        kind = self.workload_type.currentData()
        wl = self.doc.get(path).get("workload", {})
        if isinstance(wl, dict) and str(wl.get("type", "")).lower() == kind:
            return
        self._try(lambda: self.doc.set_workload(path[1], kind, {}),
                  f"workload of {_describe(self.doc, path)} = {kind}")

    def _commit_param(self, name: str) -> None:
        path = self._selected
        if self._loading or path is None or path[0] != "guest":
            return
        wl = self.doc.get(path).get("workload", {})
        wl = wl if isinstance(wl, dict) else {}
        kind = self.workload_type.currentData()
        values = {str(k).lower(): v for k, v in wl.items() if k != "type"}
        values = {k: float(v) for k, v in values.items()
                  if isinstance(v, int | float) and not isinstance(v, bool)}
        values[name] = self.params[name].value()
        self._try(lambda: self.doc.set_workload(path[1], kind, values),
                  f"{name} of {_describe(self.doc, path)} = {number(values[name])}")

    def _commit_link_members(self) -> None:
        path = self._selected
        if self._loading or path is None or path[0] != "link":
            return
        pair = [self.link_a.currentText().strip(), self.link_b.currentText().strip()]
        self.set_field("members", pair)

    def _chpid_rows(self) -> list[dict[str, Any]]:
        rows = []
        for r in range(self.chpids.rowCount()):
            cells = [self.chpids.item(r, c) for c in (0, 1)]
            gbps, ctcs = (parse_typed(c.text() if c else "", "int") for c in cells)
            rows.append({"gbps": gbps if gbps is not None else 8, "ctcs": ctcs})
        return rows

    def _commit_chpids(self, rows: list[dict[str, Any]] | None = None, label: str = "") -> None:
        path = self._selected
        if self._loading or path is None or path[0] != "link":
            return
        rows = self._chpid_rows() if rows is None else rows
        self._try(lambda: self.doc.set_chpids(path[1], rows),
                  label or f"CHPIDs of {_describe(self.doc, path)}")

    def _add_chpid(self) -> None:
        self._commit_chpids(self._chpid_rows() + [{"gbps": 8, "ctcs": 4}], "add a CHPID")

    def _remove_chpid(self) -> None:
        rows = self._chpid_rows()
        r = self.chpids.currentRow()
        if not rows:
            return
        del rows[r if 0 <= r < len(rows) else -1]
        self._commit_chpids(rows, "remove a CHPID")

    # -- adding and removing ---------------------------------------------------------------------
    def _member_of_selection(self) -> int | None:
        path = self._selected
        if path is not None and path[0] == "member":
            return int(path[1])
        if path is not None and path[0] == "guest":
            name = str(self.doc.get(path).get("member", "")).upper()
            names = [n.upper() for n in self.doc.member_names()]
            return names.index(name) if name in names else None
        return 0 if self.doc.members() else None

    def add_member(self) -> bool:
        """Add a member (``MEMBn``, 4 CPUs, 16G)."""
        new = self.doc.new_member()
        return self._try(lambda: self.doc.add(("member",), new), f"add member {new['name']}")

    def add_volume(self) -> bool:
        """Add a paging volume to the selected member (or the first)."""
        mi = self._member_of_selection()
        if mi is None:
            return False
        new = self.doc.new_volume(mi)
        name = self.doc.members()[mi].get("name", "?")
        return self._try(lambda: self.doc.add(("member", mi, "volume"), new),
                         f"add volume {new['volid']} to {name}")

    def add_link(self) -> bool:
        """Add a link between the first two members not yet linked."""
        new = self.doc.new_link()
        return self._try(lambda: self.doc.add(("link",), new),
                         f"add link {' - '.join(new['members'])}")

    def add_guest(self) -> bool:
        """Add an idle 2G guest on the selected member (or the first)."""
        mi = self._member_of_selection()
        member = self.doc.member_names()[mi] if mi is not None else None
        new = self.doc.new_guest(member)
        return self._try(lambda: self.doc.add(("guest",), new), f"add guest {new['userid']}")

    def remove_selected(self) -> bool:
        """Remove the selected member, volume, link or guest."""
        path = self._selected
        if path is None:
            return False
        what = _describe(self.doc, path)
        return self._try(lambda: (self.doc.remove(path), None), f"remove {what}")

    # -- saving and applying ----------------------------------------------------------------------
    def _ok_to_write(self) -> bool:
        if self.error is None:
            return True
        answer = QMessageBox.question(
            self, "Save a scenario with an error?",
            f"{self.error}\n\nThe window and `ssisim` will refuse the file until this is "
            "fixed. Save it anyway?",
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Cancel)
        return answer == QMessageBox.StandardButton.Save

    def _write(self, path: str) -> bool:
        try:
            FilePath(path).write_text(self.doc.text, encoding="utf-8")
        except OSError as e:
            QMessageBox.warning(self, "Scenario not saved", f"{path}: {e.strerror or e}")
            return False
        self.stack.setClean()
        return True

    def save(self) -> bool:
        """Write the document to its file (a bundled or unsaved scenario: Save As)."""
        if not self._can_save():
            return self.save_as()
        if not self._ok_to_write():
            return False
        return self._write(self.path)

    def save_as(self, path: str | None = None) -> bool:
        """Write the document to another file (asked for when not given); it is the file
        edited from then on."""
        if path is None:
            start = str(FilePath.home()) if self.bundled or not self._can_save() \
                else self.path
            path, _ = QFileDialog.getSaveFileName(self, "Save scenario as", start,
                                                  "Scenarios (*.toml)")
            if not path:
                return False
        if not self._ok_to_write() or not self._write(path):
            return False
        self.path = str(FilePath(path))
        self.bundled = False
        self.host.remember_dir(FilePath(path).parent)
        self.show_text(self.doc.text, self._selected)  # messages now name the new file
        return True

    def apply(self) -> bool:
        """Restart the window's simulation with the edited scenario (paused, at t = 0),
        asking first when work in progress would be lost; False when not applied."""
        if self.error is not None:
            return False
        sc = loads_scenario(self.doc.text, self.path)
        if not self.host.confirm_discard(f"apply the edited cluster of \u201c{sc.name}\u201d"):
            return False
        self.host.start_scenario(sc)
        self._applied = self.doc.text
        return True

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 (Qt's name)
        """Ask before edits that were neither saved nor applied are lost."""
        if self.ask_before_closing and not self.stack.isClean() \
                and self.doc.text != self._applied:
            answer = QMessageBox.question(
                self, "Discard the edits?",
                "The edited cluster is neither saved nor applied. Discard the edits?",
                QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel,
                QMessageBox.StandardButton.Cancel)
            if answer != QMessageBox.StandardButton.Discard:
                event.ignore()
                return
        super().closeEvent(event)


# -- summaries in the tree ----------------------------------------------------------------------
def _size(v: Any) -> str:
    return shown(v) if v is not None else "-"


def _member_summary(m: dict[str, Any]) -> str:
    vols = m.get("volume", [])
    n = len(vols) if isinstance(vols, list) else 0
    xstor = m.get("xstor")
    xs = f", XSTOR {_size(xstor)}" if xstor is not None and size_mb(xstor) else ""
    return (f"{shown(m.get('cpus', 4))} CPUs, central {_size(m.get('central'))}{xs}, "
            f"{n} paging volume{'s' if n != 1 else ''}")


def _volume_summary(v: dict[str, Any]) -> str:
    space = _size(v.get("size")) if "size" in v else f"{shown(v.get('slots'))} slots"
    return (f"{space}, {shown(v.get('service_ms', 0.5))} ms, queue depth "
            f"{shown(v.get('queue_depth', 4))}")


def _link_summary(ln: dict[str, Any]) -> str:
    chp = ln.get("chpids", [])
    chp = [c for c in chp if isinstance(c, dict)] if isinstance(chp, list) else []
    speeds = [c.get("gbps") for c in chp]
    total = sum(s for s in speeds if isinstance(s, int | float) and not isinstance(s, bool))
    return f"{len(chp)} CHPIDs, {number(total)} Gbit/s"


def _guest_summary(g: dict[str, Any]) -> str:
    wl = g.get("workload", {"type": "idle"})
    kind = str(wl.get("type", "?")) if isinstance(wl, dict) else "?"
    return f"on {shown(g.get('member'))}, {_size(g.get('storage'))}, {kind}"


def _describe(doc: ScenarioDoc, path: Path) -> str:
    """``member MEMB1``, ``volume M1PG02 of MEMB1``, ``link MEMB1 - MEMB2``, ``guest LNX1``."""
    t = doc.get(path)
    if path[0] == "member" and len(path) == 4:
        return f"volume {t.get('volid', path[3] + 1)} of {doc.members()[path[1]].get('name')}"
    if path[0] == "member":
        return f"member {t.get('name', path[1] + 1)}"
    if path[0] == "link":
        pair = t.get("members", [])
        return "link " + (" - ".join(map(str, pair)) if isinstance(pair, list) else "?")
    return f"guest {t.get('userid', path[1] + 1)}"
