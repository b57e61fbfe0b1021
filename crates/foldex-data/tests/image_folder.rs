//! The image folder on images the tests write: classes and labels, decoding, augmentations
//! that are the same on every executor, and bad folders and files named.

use foldex_auto::AutoEx;
use foldex_core::Executor;
use foldex_data::augment::{RandomCrop, RandomFlip, ToChw};
use foldex_data::{DataError, ImageFolder, ItemTransform};
use foldex_dataset::Dataset;
use foldex_loader::{Checked, ErrorPolicy, Loader};
use foldex_seq::SequentialEx;
use foldex_taskpool::TaskPoolEx;
use foldex_threaded::ThreadedEx;
use image::{ImageFormat, Rgb, RgbImage};
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("foldex-images-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Writes image `n` of class `class` to `dir`: red `60 * class` everywhere, a gradient in the
/// other channels.
fn write_image(dir: &Path, class: u8, n: u8, format: ImageFormat) {
    std::fs::create_dir_all(dir).unwrap();
    let image = RgbImage::from_fn(12, 10, |x, y| {
        Rgb([60 * class, (x as u8 * 20).wrapping_add(n), y as u8 * 20])
    });
    let ext = if format == ImageFormat::Png {
        "png"
    } else {
        "jpg"
    };
    image
        .save_with_format(dir.join(format!("{n:03}.{ext}")), format)
        .unwrap();
}

/// Three classes (`bird` with a nested directory), 7 images in all, and a text file.
fn three_classes(root: &Path) {
    for n in 0..3 {
        write_image(&root.join("cat"), 0, n, ImageFormat::Png);
    }
    write_image(&root.join("dog"), 1, 0, ImageFormat::Png);
    write_image(&root.join("dog"), 1, 1, ImageFormat::Jpeg);
    write_image(&root.join("bird").join("young"), 2, 0, ImageFormat::Png);
    write_image(&root.join("bird"), 2, 1, ImageFormat::Png);
    std::fs::write(root.join("cat").join("notes.txt"), "not an image").unwrap();
}

#[test]
fn classes_labels_and_images_load_on_every_executor() {
    let root = scratch("classes");
    three_classes(&root);
    let folder = ImageFolder::open(&root).unwrap();
    assert_eq!(folder.classes(), ["bird", "cat", "dog"]);
    assert_eq!(folder.labels(), [0, 0, 1, 1, 1, 2, 2]);
    assert!(
        folder.path(0).ends_with("bird/001.png"),
        "sorted paths: {:?}",
        folder.path(0)
    );
    let executors: Vec<Arc<dyn Executor>> = vec![
        Arc::new(SequentialEx),
        Arc::new(ThreadedEx::new().basesize(1)),
        Arc::new(TaskPoolEx::new().ntasks(3)),
        Arc::new(AutoEx::new()),
    ];
    for executor in executors {
        let loader = Loader::new(ImageFolder::open(&root).unwrap(), executor).batch_size(3);
        let mut seen = Vec::new();
        for batch in &loader {
            for item in batch {
                let (image, label) = item.unwrap();
                assert_eq!(image.dimensions(), (12, 10));
                seen.push((label, image.get_pixel(5, 5)[0]));
            }
        }
        assert_eq!(seen.len(), 7);
        // Written as cat 0, dog 1, bird 2; labelled by sorted names (bird 0, cat 1, dog 2).
        // The red channel tells which (JPEG moves it a little).
        let red = |label: usize| 60 * [2u8, 0, 1][label];
        assert!(
            seen.iter().all(|&(label, r)| r.abs_diff(red(label)) <= 10),
            "{seen:?}"
        );
    }
    std::fs::remove_dir_all(root).unwrap();
}

#[test]
fn augmentations_are_the_same_on_every_executor_and_change_with_the_epoch() {
    let root = scratch("augment");
    for n in 0..20 {
        write_image(&root.join("only"), 0, n, ImageFormat::Png);
    }
    let augmented = || {
        ImageFolder::open(&root).unwrap().transform(
            RandomCrop {
                width: 8,
                height: 8,
            }
            .then(RandomFlip { p: 0.5 })
            .then(ToChw::UNIT),
        )
    };
    let epochs = |executor: Arc<dyn Executor>| -> Vec<Vec<Vec<f32>>> {
        let loader = Loader::new(augmented(), executor).batch_size(4).seed(5);
        (0..2)
            .map(|_| {
                loader
                    .iter()
                    .flatten()
                    .map(|item| item.unwrap().0)
                    .collect()
            })
            .collect()
    };
    let sequential = epochs(Arc::new(SequentialEx));
    assert_eq!(sequential, epochs(Arc::new(ThreadedEx::new().basesize(1))));
    assert_eq!(sequential, epochs(Arc::new(TaskPoolEx::new().ntasks(4))));
    assert_ne!(
        sequential[0], sequential[1],
        "another epoch, other crops and flips"
    );
    assert!(sequential[0].iter().all(|chw| chw.len() == 3 * 8 * 8));
    std::fs::remove_dir_all(root).unwrap();
}

#[test]
fn a_corrupt_image_goes_through_the_error_policy_with_its_path_and_index() {
    let root = scratch("corrupt");
    three_classes(&root);
    let broken = root.join("cat").join("001.png");
    std::fs::write(&broken, b"\x89PNG but not really").unwrap();
    let folder = ImageFolder::open(&root).unwrap();
    let index = (0..folder.len())
        .find(|&i| folder.path(i) == broken)
        .unwrap();
    let err = folder.get(index).unwrap_err();
    assert!(matches!(err, DataError::Malformed { .. }), "{err}");
    let loader = Loader::new(
        Checked::new(folder, ErrorPolicy::skip()),
        ThreadedEx::new().basesize(1),
    )
    .batch_size(2);
    let mut iter = loader.iter();
    assert_eq!(iter.by_ref().flatten().count(), 6);
    let skipped = iter.stats().skipped;
    assert_eq!(skipped.len(), 1);
    assert_eq!(skipped[0].index, index);
    assert!(skipped[0].error.contains("001.png"), "{}", skipped[0].error);
    std::fs::remove_dir_all(root).unwrap();
}

#[test]
fn empty_or_missing_folders_are_refused_by_name() {
    let root = scratch("empty");
    let err = ImageFolder::open(&root).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("{}: no class subdirectories found", root.display())
    );
    std::fs::create_dir_all(root.join("cat")).unwrap();
    std::fs::write(root.join("cat").join("readme.md"), "").unwrap();
    let err = ImageFolder::open(&root).unwrap_err();
    assert!(
        err.to_string().contains("no images (.png, .jpg, .jpeg)"),
        "{err}"
    );
    let missing = ImageFolder::open(root.join("nowhere")).unwrap_err();
    assert!(matches!(missing, DataError::Io { .. }), "{missing}");
    std::fs::remove_dir_all(root).unwrap();
}

/// `ImageFolder::open(root)` fails with a `LinkCycle` that names `link`.
#[cfg(unix)]
fn refused_link(root: &Path, link: &Path) {
    let err = ImageFolder::open(root).unwrap_err();
    match &err {
        DataError::LinkCycle { link: named, .. } => assert_eq!(named, link, "{err}"),
        other => panic!(
            "expected a LinkCycle naming {}, got {other}",
            link.display()
        ),
    }
    let message = err.to_string();
    assert!(
        message.starts_with(&link.display().to_string()),
        "{message}"
    );
    assert!(message.contains("a cycle"), "{message}");
}

#[cfg(unix)]
#[test]
fn a_link_loop_below_a_class_ends_refused_by_name() {
    let root = scratch("loop");
    write_image(&root.join("cat"), 0, 0, ImageFormat::Png);
    let again = root.join("cat").join("again");
    std::os::unix::fs::symlink(root.join("cat"), &again).unwrap();
    refused_link(&root, &again);
    std::fs::remove_dir_all(root).unwrap();
}

#[cfg(unix)]
#[test]
fn a_link_back_to_the_root_or_above_it_is_refused_by_name_never_relabelled() {
    use std::os::unix::fs::symlink;
    let root = scratch("link-to-root");
    write_image(&root.join("cat"), 0, 0, ImageFormat::Png);
    write_image(&root.join("dog"), 1, 0, ImageFormat::Png);
    // dog/loop/cat/000.png would be labelled dog.
    let to_root = root.join("dog").join("loop");
    symlink(&root, &to_root).unwrap();
    refused_link(&root, &to_root);
    std::fs::remove_file(&to_root).unwrap();
    // A link to a directory above the root holds the root too.
    let above = root.join("dog").join("up");
    symlink(root.parent().unwrap(), &above).unwrap();
    refused_link(&root, &above);
    std::fs::remove_file(&above).unwrap();
    // A class that is itself a link to the root.
    let class = root.join("everything");
    symlink(&root, &class).unwrap();
    refused_link(&root, &class);
    std::fs::remove_file(&class).unwrap();
    assert_eq!(ImageFolder::open(&root).unwrap().labels(), [0, 1]);
    std::fs::remove_dir_all(root).unwrap();
}

#[cfg(unix)]
#[test]
fn links_to_outside_directories_are_followed_and_a_cycle_through_them_is_refused() {
    use std::os::unix::fs::symlink;
    let root = scratch("link-outside");
    let outside = scratch("link-outside-target");
    write_image(&root.join("cat"), 0, 0, ImageFormat::Png);
    write_image(&root.join("dog"), 1, 0, ImageFormat::Png);
    write_image(&outside, 1, 7, ImageFormat::Png);
    symlink(&outside, root.join("dog").join("more")).unwrap();
    let folder = ImageFolder::open(&root).unwrap();
    assert_eq!(folder.labels(), [0, 1, 1], "the outside image is a dog");
    assert_eq!(
        folder.path(2),
        root.join("dog").join("more").join("007.png")
    );
    // outside/back leads to dog again, which is being walked: a cycle, named as walked.
    symlink(root.join("dog"), outside.join("back")).unwrap();
    refused_link(&root, &root.join("dog").join("more").join("back"));
    std::fs::remove_dir_all(root).unwrap();
    std::fs::remove_dir_all(outside).unwrap();
}
